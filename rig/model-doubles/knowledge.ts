/**
 * What a wire double knows and how it reads a request. A double is not a model: it answers
 * from `Knowledge` callbacks (the e2e rig's element boxes read from the DOM, or a unit
 * test's fixed boxes), after reading the user's text and the real images out of the
 * request the SDK sent. Every answer names the double as its model.
 */
import sharp from "sharp";

/** A rectangle in pixels of the image it refers to. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An image the double decoded from a request. */
export interface DoubleImage {
  /** The name in the label before it: `screen`, `reference`, `crop`, `baseline`, `diff`. */
  name: string;
  mimeType: string;
  width: number;
  height: number;
  bytes: Buffer;
}

/** The size of the image a knowledge callback should answer in, with its bytes when there are some. */
export interface ImageFrame {
  width: number;
  height: number;
  bytes?: Buffer;
}

/** A `locate` answer: a box in pixels of the frame given, or not found with a reason. */
export type LocateResult = { box: Box; reason?: string } | { found: false; reason: string };
/** A `check` answer. */
export interface CheckResult {
  pass: boolean;
  reason?: string;
}
/** A `judge` answer; `varying` boxes are in pixels of the screen frame. */
export interface JudgeResult {
  accept: boolean;
  reason?: string;
  varying?: Box[];
}
/** A `compare` answer; `varying` boxes are in pixels of the screen frame. */
export interface CompareResult {
  realChange: boolean;
  reason?: string;
  varying?: Box[];
}

/** A `satisfy` answer: how likely the statement holds, 0-1. */
export interface SatisfyResult {
  probability: number;
  reason?: string;
}

/** A control as a `decide` or `complete` request listed it (src/core/model/contract.ts's Control, read back from the text). */
export interface DoubleControl {
  id: string;
  role: string;
  label: string;
  checked?: boolean;
  selected?: boolean;
  focused?: boolean;
  holds?: string;
  options?: string[];
}

/** One option of a `decide` answer; fields left out are written as null, as strict structured output does. */
export interface DoubleChoice {
  action: string;
  control?: string;
  value?: string;
  checked?: boolean;
  option?: string;
  key?: string;
  direction?: string;
  probability: number;
}

/** A `decide` answer: the options for the next step. */
export interface DecideResult {
  choices: DoubleChoice[];
  reason?: string;
}

/** A `complete` answer: how likely the goal is reached, 0-1. */
export interface CompleteResult {
  probability: number;
  reason?: string;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Callbacks a double answers from. Boxes are in pixels of the `image` frame passed in: the
 * image the double received, or (for a refinement crop) the whole screenshot, which the
 * double then maps into the crop itself.
 */
export interface Knowledge {
  locate?(target: string, image: ImageFrame): MaybePromise<LocateResult>;
  check?(statement: string, image: ImageFrame): MaybePromise<CheckResult>;
  judge?(prompt: string, image: ImageFrame, referenceCount: number): MaybePromise<JudgeResult>;
  compare?(
    prompt: string,
    images: { screen: ImageFrame; baseline: ImageFrame; diff: ImageFrame },
  ): MaybePromise<CompareResult>;
  /** `evidence` is the text of the request's `<snapshot>` block; `image` the screen or crop, when one was sent. */
  satisfy?(statement: string, evidence: string, image: ImageFrame | undefined): MaybePromise<SatisfyResult>;
  /** `ai.act`'s next step: from the goal, the listed controls, the supplied values' names and the history read back. */
  decide?(
    goal: string,
    controls: DoubleControl[],
    valueNames: string[],
    history: string[],
    image: ImageFrame,
  ): MaybePromise<DecideResult>;
  /** `ai.act`'s completion judgment. */
  complete?(
    goal: string,
    controls: DoubleControl[],
    history: string[],
    image: ImageFrame,
  ): MaybePromise<CompleteResult>;
}

/** Request kinds, as the double infers them from the answer schema in the request. */
export type Kind = "locate" | "check" | "judge" | "compare" | "satisfy" | "decide" | "complete";

/** Something to do instead of answering, for the next request(s). */
export type Fault =
  /** An HTTP error with the provider's error body; `retryAfterSeconds` sets `Retry-After`. */
  | { status: number; retryAfterSeconds?: number; message?: string }
  /** Accept the request and never answer (until the client gives up or the double closes). */
  | "hang"
  /** Answer 200 with model JSON that does not match the schema. */
  | "malformed"
  /** Answer 200 with model text that is not JSON. */
  | "not-json"
  /** Answer 200 with an HTTP body that is not JSON at all. */
  | "garbage"
  /** The provider's refusal (OpenAI `refusal`; Gemini finish reason SAFETY). */
  | "refusal"
  /** Gemini only: the prompt was blocked (`promptFeedback.blockReason`). */
  | "blocked";

/** One request as the double understood it. */
export interface ReceivedRequest {
  kind: Kind | undefined;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  body: unknown;
  /** The model the request named. */
  model: string;
  /** The images in order, with the label names before them. */
  images: DoubleImage[];
  /** All text parts, joined by newlines (system instruction first). */
  text: string;
  /** The user's text from the tagged block (`<target>`, `<statement>`, `<expected>`), unescaped. */
  userText: string | undefined;
  /** For `satisfy`: the evidence in the `<snapshot>` block, unescaped. */
  snapshot?: string;
  /** For `decide` and `complete`: the controls of the `<controls>` block, one per line. */
  controls?: DoubleControl[];
  /** For `decide`: the value names of the `<values>` block. */
  valueNames?: string[];
  /** For `decide` and `complete`: the lines of the `<history>` block. */
  history?: string[];
  /** For a refinement pass: the crop's region of the whole screenshot. */
  crop?: { x: number; y: number; width: number; height: number; ofWidth: number; ofHeight: number };
  /** Which fault, if any, answered this request. */
  fault?: Fault;
}

/** A part of a request in order: text or an image's bytes. */
export type RawPart = { text: string } | { mimeType: string; bytes: Buffer };

const unescape = (t: string) => t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

const NAMED_KINDS: Record<string, Kind> = {
  locate_answer: "locate",
  check_answer: "check",
  judge_answer: "judge",
  compare_answer: "compare",
  satisfy_answer: "satisfy",
  decide_answer: "decide",
  complete_answer: "complete",
};

/**
 * Infer the kind from the answer schema the request carried: its name (`response_format.json_schema.name`,
 * or the schema's `title`), else its properties. `satisfy` and `complete` have the same properties, so a
 * nameless `{ reason, probability }` schema reads as `satisfy`.
 */
export function kindOfSchema(schema: unknown, name?: string): Kind | undefined {
  const title = (schema as { title?: unknown } | undefined)?.title;
  const named = NAMED_KINDS[name ?? (typeof title === "string" ? title : "")];
  if (named) return named;
  const props = Object.keys((schema as { properties?: object } | undefined)?.properties ?? {});
  if (props.includes("choices")) return "decide";
  if (props.includes("found")) return "locate";
  if (props.includes("pass")) return "check";
  if (props.includes("accept")) return "judge";
  if (props.includes("realChange")) return "compare";
  if (props.includes("probability")) return "satisfy";
  return undefined;
}

/** Read labels, images, the user's text and a crop region out of a request's parts. */
export async function interpret(
  parts: RawPart[],
  base: Omit<ReceivedRequest, "images" | "text" | "userText" | "crop">,
): Promise<ReceivedRequest> {
  const images: DoubleImage[] = [];
  const texts: string[] = [];
  let label = "image";
  for (const part of parts) {
    if ("text" in part) {
      texts.push(part.text);
      const named = /^Image "([^"]+)":/.exec(part.text);
      if (named) label = named[1]!;
      continue;
    }
    const meta = await sharp(part.bytes).metadata();
    images.push({ name: label, mimeType: part.mimeType, width: meta.width!, height: meta.height!, bytes: part.bytes });
    label = "image";
  }
  const text = texts.join("\n");
  // The provider escapes user text, so a block's content never holds "<"; the instructions'
  // own mentions of "<target>" are not blocks.
  const tagged = /<(target|statement|expected|goal)>([^<]*)<\/\1>/.exec(text);
  const snapshot = /<snapshot>([^<]*)<\/snapshot>/.exec(text);
  const act = base.kind === "decide" || base.kind === "complete" ? readActBlocks(text) : {};
  const crop =
    /<crop_region x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" of_width="(\d+)" of_height="(\d+)"\/>/.exec(text);
  return {
    ...base,
    images,
    text,
    userText: tagged ? unescape(tagged[2]!) : undefined,
    ...(snapshot ? { snapshot: unescape(snapshot[1]!) } : {}),
    ...act,
    ...(crop
      ? {
          crop: {
            x: +crop[1]!,
            y: +crop[2]!,
            width: +crop[3]!,
            height: +crop[4]!,
            ofWidth: +crop[5]!,
            ofHeight: +crop[6]!,
          },
        }
      : {}),
  };
}

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
/** `c3 field "Email" [unchecked, focused] holds="email" options=["A","B"]`, as src/providers/prompts.ts writes it. */
const CONTROL_LINE = new RegExp(
  String.raw`^(\S+) (\S+) (${QUOTED})(?: \[([^\]]*)\])?(?: holds=(${QUOTED}))?(?: options=(\[.*\]))?$`,
);

/** Read one control line back; a line the double cannot read is an error, as a model would misread it. */
function readControl(line: string): DoubleControl {
  const m = CONTROL_LINE.exec(line);
  if (!m) throw new NoKnowledgeError(`the double cannot read the control line ${JSON.stringify(line)}`);
  const states = (m[4] ?? "").split(", ").filter(Boolean);
  return {
    id: m[1]!,
    role: m[2]!,
    label: JSON.parse(m[3]!) as string,
    ...(states.includes("checked") ? { checked: true } : states.includes("unchecked") ? { checked: false } : {}),
    ...(states.includes("selected") ? { selected: true } : {}),
    ...(states.includes("focused") ? { focused: true } : {}),
    ...(m[5] ? { holds: JSON.parse(m[5]) as string } : {}),
    ...(m[6] ? { options: JSON.parse(m[6]) as string[] } : {}),
  };
}

/** The lines of a tagged block (`<controls>`, `<history>`), unescaped; undefined when the block is absent. */
function blockLines(text: string, tag: string): string[] | undefined {
  const m = new RegExp(`<${tag}>\n([^<]*)\n</${tag}>`).exec(text);
  return m ? unescape(m[1]!).split("\n").filter(Boolean) : undefined;
}

/** The controls, value names and history of a `decide` or `complete` request. */
function readActBlocks(text: string): Pick<ReceivedRequest, "controls" | "valueNames" | "history"> {
  const controls = blockLines(text, "controls");
  const history = blockLines(text, "history");
  const values = /<values>([^<]*)<\/values>/.exec(text);
  return {
    ...(controls ? { controls: controls.map(readControl) } : {}),
    ...(values ? { valueNames: JSON.parse(unescape(values[1]!)) as string[] } : {}),
    ...(history ? { history } : {}),
  };
}

/** An answer before it is written in a wire convention: boxes in pixels of `frame` (the sent image). */
export interface NeutralAnswer {
  fields: Record<string, unknown>;
  /** Boxes to encode: `box` (locate) and `varying`. */
  box?: Box | null;
  varying?: Box[];
  frame: { width: number; height: number };
  /** For a refinement crop: the box in pixels of the whole screenshot, and that screenshot's size. */
  inScreen?: { box: Box | null; screen: { width: number; height: number } };
}

const frameOf = (image: DoubleImage): ImageFrame => ({ width: image.width, height: image.height, bytes: image.bytes });

/** Map a box given in the whole screenshot into the crop image the double received. */
function intoCrop(box: Box, crop: NonNullable<ReceivedRequest["crop"]>, image: DoubleImage): Box | undefined {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  if (cx < crop.x || cy < crop.y || cx > crop.x + crop.width || cy > crop.y + crop.height) return undefined;
  const sx = image.width / crop.width;
  const sy = image.height / crop.height;
  const x0 = Math.max(0, (box.x - crop.x) * sx);
  const y0 = Math.max(0, (box.y - crop.y) * sy);
  const x1 = Math.min(image.width, (box.x + box.width - crop.x) * sx);
  const y1 = Math.min(image.height, (box.y + box.height - crop.y) * sy);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Error a double answers with when a test gave it no knowledge for a kind. */
export class NoKnowledgeError extends Error {}

/** Answer a request from knowledge, with boxes in pixels of the image the double received. */
export async function answerFromKnowledge(knowledge: Knowledge, request: ReceivedRequest): Promise<NeutralAnswer> {
  const { kind, images } = request;
  const text = request.userText ?? "";
  const named = (name: string) => images.find((i) => i.name === name);
  switch (kind) {
    case "locate": {
      if (!knowledge.locate) throw new NoKnowledgeError("no locate knowledge");
      const image = request.crop ? named("crop") : named("screen");
      if (!image) throw new NoKnowledgeError("the locate request has no screen or crop image");
      const crop = request.crop;
      const frame: ImageFrame = crop ? { width: crop.ofWidth, height: crop.ofHeight } : frameOf(image);
      const result = await knowledge.locate(text, frame);
      const box = "box" in result ? (crop ? intoCrop(result.box, crop, image) : result.box) : undefined;
      const reason = box ? (result.reason ?? `double: knows "${text}"`) : (result.reason ?? "double: not in the crop");
      return {
        fields: { reason, found: !!box },
        box: box ?? null,
        frame: image,
        ...(crop && box
          ? { inScreen: { box: (result as { box: Box }).box, screen: { width: crop.ofWidth, height: crop.ofHeight } } }
          : {}),
      };
    }
    case "check": {
      if (!knowledge.check) throw new NoKnowledgeError("no check knowledge");
      const screen = named("screen")!;
      const r = await knowledge.check(text, frameOf(screen));
      return { fields: { reason: r.reason ?? "double: check", pass: r.pass }, frame: screen };
    }
    case "judge": {
      if (!knowledge.judge) throw new NoKnowledgeError("no judge knowledge");
      const screen = named("screen")!;
      const references = images.filter((i) => i.name === "reference").length;
      const r = await knowledge.judge(text, frameOf(screen), references);
      return {
        fields: { reason: r.reason ?? "double: judge", accept: r.accept },
        varying: r.varying ?? [],
        frame: screen,
      };
    }
    case "compare": {
      if (!knowledge.compare) throw new NoKnowledgeError("no compare knowledge");
      const screen = named("screen")!;
      const r = await knowledge.compare(text, {
        screen: frameOf(screen),
        baseline: frameOf(named("baseline")!),
        diff: frameOf(named("diff")!),
      });
      return {
        fields: { reason: r.reason ?? "double: compare", realChange: r.realChange },
        varying: r.varying ?? [],
        frame: screen,
      };
    }
    case "satisfy": {
      if (!knowledge.satisfy) throw new NoKnowledgeError("no satisfy knowledge");
      const screen = named("screen");
      const r = await knowledge.satisfy(text, request.snapshot ?? "", screen ? frameOf(screen) : undefined);
      return {
        fields: { reason: r.reason ?? "double: satisfy", probability: r.probability },
        frame: screen ?? { width: 1, height: 1 },
      };
    }
    case "decide":
    case "complete":
      return answerAct(knowledge, request, kind);
    default:
      throw new NoKnowledgeError("the request carries no answer schema the double recognises");
  }
}

/** The `null` every unused field of a choice is, under strict structured output. */
const CHOICE_FIELDS = ["control", "value", "checked", "option", "key", "direction"] as const;

async function answerAct(
  knowledge: Knowledge,
  request: ReceivedRequest,
  kind: "decide" | "complete",
): Promise<NeutralAnswer> {
  const screen = request.images.find((i) => i.name === "screen");
  if (!screen) throw new NoKnowledgeError(`the ${kind} request has no screen image`);
  if (!request.controls || !request.history) {
    throw new NoKnowledgeError(`the ${kind} request has no <controls> or <history> block`);
  }
  const goal = request.userText ?? "";
  if (kind === "complete") {
    if (!knowledge.complete) throw new NoKnowledgeError("no complete knowledge");
    const r = await knowledge.complete(goal, request.controls, request.history, frameOf(screen));
    return { fields: { reason: r.reason ?? "double: complete", probability: r.probability }, frame: screen };
  }
  if (!knowledge.decide) throw new NoKnowledgeError("no decide knowledge");
  if (!request.valueNames) throw new NoKnowledgeError("the decide request has no <values> block");
  const r = await knowledge.decide(goal, request.controls, request.valueNames, request.history, frameOf(screen));
  const choices = r.choices.map((c) => ({
    action: c.action,
    ...Object.fromEntries(CHOICE_FIELDS.map((f) => [f, c[f] ?? null])),
    probability: c.probability,
  }));
  return { fields: { reason: r.reason ?? "double: decide", choices }, frame: screen };
}

/** Token counts a double reports: deterministic, from what it received and wrote. */
export function doubleUsage(request: ReceivedRequest, answerText: string): { input: number; output: number } {
  return {
    input: 258 * request.images.length + Math.ceil(request.text.length / 4),
    output: Math.ceil(answerText.length / 4),
  };
}
