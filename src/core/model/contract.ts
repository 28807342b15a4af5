/*
 * The AI contract: the seven request kinds tapshot sends to a model channel, and
 * the answers it accepts. Every answer is validated here; a malformed one is an
 * {@link AiAnswerError} that names the kind and the zod issue, never a guess.
 */
import { z } from "zod";
import { untilAborted } from "../ground/deadline.js";
import { AiAnswerError } from "../ground/errors.js";
import { describeZodError } from "../ground/zod-errors.js";
import type { Rect } from "../ground/geometry.js";

/** An image sent to a model: base64 data plus its size in pixels. */
export const AiImageSchema = z.object({
  mimeType: z.enum(["image/png", "image/jpeg"]),
  data: z.string().min(1),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
/** An image sent to a model: base64 data plus its size in pixels. */
export type AiImage = z.infer<typeof AiImageSchema>;

/** The most page-source controls a locate request carries. */
export const MAX_LOCATE_CONTROLS = 400;

/** A rectangle in pixels of the image it refers to; `x`/`y` is the top-left corner. */
export const BoxSchema = z.object({
  x: z.number().finite().nonnegative(),
  y: z.number().finite().nonnegative(),
  width: z.number().finite().positive(),
  height: z.number().finite().positive(),
});
/** A rectangle in pixels of the image it refers to; `x`/`y` is the top-left corner. */
export type Box = Rect;

/** What kind of control an observed control is. */
export const CONTROL_ROLES = [
  "button",
  "field",
  "checkbox",
  "switch",
  "radio",
  "select",
  "option",
  "scrollable",
  "link",
  "other",
] as const;

/** Tokens a provider spent on one answer, when it knows. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
});
/** Tokens a provider spent on one answer, when it knows. */
export type Usage = z.infer<typeof UsageSchema>;

const answerBase = {
  reason: z.string(),
  /** Which model (or double, or local engine) produced the answer; stored in records. */
  model: z.string().min(1),
  usage: UsageSchema.optional(),
};

export const LocateRequestSchema = z.object({
  kind: z.literal("locate"),
  screen: AiImageSchema,
  prompt: z.string().min(1),
  /** The stored crop of the element, sent when healing a replay that no longer matches. */
  reference: AiImageSchema.optional(),
  /**
   * What the heal ladder's cheap rungs found (docs/heal.md), as plain text sent next to the
   * screenshot: the stored element's attributes, crop-search and accessibility candidates.
   */
  evidence: z.string().min(1).max(4000).optional(),
  /**
   * The screen's controls from the page source, each with its role and box in screenshot pixels,
   * sent when the prompt names a quoted text and a kind and the page source alone did not decide:
   * a text-only model picks, among the places showing the text, the one that belongs to a control
   * of that kind (a field's label, not a title). A vision model may ignore it.
   */
  controls: z
    .array(z.object({ role: z.enum(CONTROL_ROLES), box: BoxSchema }))
    .max(MAX_LOCATE_CONTROLS)
    .optional(),
});
export const LocateAnswerSchema = z
  .object({ found: z.boolean(), box: BoxSchema.optional(), ...answerBase })
  .refine((a) => !a.found || a.box !== undefined, {
    message: "found is true but no box was given",
    path: ["box"],
  });

export const CheckRequestSchema = z.object({
  kind: z.literal("check"),
  screen: AiImageSchema,
  statement: z.string().min(1),
});
export const CheckAnswerSchema = z.object({ pass: z.boolean(), ...answerBase });

/** A baseline of another device, sent to `judge` as a reference. */
export const ReferenceSchema = z.object({ device: z.string(), image: AiImageSchema });

export const JudgeRequestSchema = z.object({
  kind: z.literal("judge"),
  screen: AiImageSchema,
  prompt: z.string().min(1),
  references: z.array(ReferenceSchema),
});
export const JudgeAnswerSchema = z.object({
  accept: z.boolean(),
  varying: z.array(BoxSchema).optional(),
  ...answerBase,
});

export const CompareRequestSchema = z.object({
  kind: z.literal("compare"),
  screen: AiImageSchema,
  baseline: AiImageSchema,
  diff: AiImageSchema,
  prompt: z.string().min(1),
});
export const CompareAnswerSchema = z.object({
  realChange: z.boolean(),
  varying: z.array(BoxSchema).optional(),
  ...answerBase,
});

/** The most characters of evidence a `satisfy` request carries (docs/api.md, "Semantic assertions"). */
export const MAX_EVIDENCE_CHARS = 100_000;

export const SatisfyRequestSchema = z.object({
  kind: z.literal("satisfy"),
  /** What should hold, e.g. "the customer is requesting a refund". */
  statement: z.string().min(1),
  /**
   * What the app shows, as text: the element's (or screen's) visible text and its accessibility tree
   * with roles and states. Text typed into editable fields is never in it.
   */
  evidence: z.string().min(1).max(MAX_EVIDENCE_CHARS),
  /** The element's crop or the screen, when the text alone cannot show it (an image, a chart). */
  screen: AiImageSchema.optional(),
  /** Extra words from the test for the model, e.g. that dates vary. */
  context: z.string().min(1).optional(),
});
export const SatisfyAnswerSchema = z.object({
  /** How likely the statement holds, 0 (certainly false) to 1 (certainly true). */
  probability: z.number().min(0).max(1),
  ...answerBase,
});

/** The most controls one `decide` or `complete` request lists (docs/api.md, "ai.act"). */
export const MAX_CONTROLS = 500;
/** The most characters of control text (labels and option names) in one observation. */
export const MAX_OBSERVATION_CHARS = 32_000;
/** The most named values one `ai.act` call may carry. */
export const MAX_ACT_VALUES = 10;
/** The most lines of an `ai.act` call's history sent with a request. */
export const MAX_HISTORY_LINES = 60;

/**
 * One visible, enabled, labelled control of the observed screen, as a model sees it: an id to answer
 * with, never coordinates, selectors or text typed into a field.
 */
export const ControlSchema = z.object({
  /** The control's id within this observation, e.g. `c7`: the model answers with it. */
  id: z.string().min(1).max(16),
  role: z.enum(CONTROL_ROLES),
  /** Its visible text, content description or accessibility label, hint and resource id or name; never typed text. */
  label: z.string().max(1000),
  checked: z.boolean().optional(),
  selected: z.boolean().optional(),
  focused: z.boolean().optional(),
  /** For a field: the name of the supplied value it already equals, `(empty)`, or `(other text)`. */
  holds: z.string().max(64).optional(),
  /** For a `select` whose options are visible (an iOS picker wheel): their labels. */
  options: z.array(z.string().max(200)).max(100).optional(),
});

/** The steps of one `ai.act` call: the actions a model may choose, and the three that end or pause a step. */
export const ACT_ACTIONS = [
  "tap",
  "fill",
  "clear",
  "setChecked",
  "select",
  "press",
  "scroll",
  "done",
  "stuck",
  "wait",
] as const;
/** Keys `press` may press: Enter/Done, Android's Back, Tab/next field. */
export const PRESS_KEYS = ["enter", "back", "tab"] as const;

/** One option of a `decide` answer: an action on a control of the observation, with its probability. */
export const ActionChoiceSchema = z.object({
  action: z.enum(ACT_ACTIONS),
  /** The control's id from the request (every action but `press`, `done`, `stuck` and `wait`). */
  control: z.string().optional(),
  /** `fill`: the name of a supplied value, never the value itself. */
  value: z.string().optional(),
  /** `setChecked`: the state to set. */
  checked: z.boolean().optional(),
  /** `select`: the label of the option to choose. */
  option: z.string().optional(),
  /** `press`: the key. */
  key: z.enum(PRESS_KEYS).optional(),
  /** `scroll`: which way the content moves into view. */
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  /** How likely this is the right next step, 0 to 1. */
  probability: z.number().min(0).max(1),
});

export const DecideRequestSchema = z.object({
  kind: z.literal("decide"),
  /** What the test wants done, e.g. "sign in with the email and password". */
  goal: z.string().min(1),
  screen: AiImageSchema,
  controls: z.array(ControlSchema).max(MAX_CONTROLS),
  /** The names of the values the test supplied (`email`, `password`); their text is never sent. */
  valueNames: z.array(z.string().min(1).max(64)).max(MAX_ACT_VALUES),
  /** What this call did so far, oldest first, one line each, failed and refused attempts included. */
  history: z.array(z.string().max(500)).max(MAX_HISTORY_LINES),
});
export const DecideAnswerSchema = z.object({
  /** The options considered, each with its probability; tapshot takes the likeliest under its policy. */
  choices: z.array(ActionChoiceSchema).max(10),
  ...answerBase,
});

export const CompleteRequestSchema = z.object({
  kind: z.literal("complete"),
  goal: z.string().min(1),
  screen: AiImageSchema,
  controls: z.array(ControlSchema).max(MAX_CONTROLS),
  history: z.array(z.string().max(500)).max(MAX_HISTORY_LINES),
});
export const CompleteAnswerSchema = z.object({
  /** How likely the goal is reached on this screen, 0 to 1. */
  probability: z.number().min(0).max(1),
  ...answerBase,
});

export const AiRequestSchema = z.discriminatedUnion("kind", [
  LocateRequestSchema,
  CheckRequestSchema,
  JudgeRequestSchema,
  CompareRequestSchema,
  SatisfyRequestSchema,
  DecideRequestSchema,
  CompleteRequestSchema,
]);

/** Ask where one element is. Answer: {@link LocateAnswer}. */
export type LocateRequest = z.infer<typeof LocateRequestSchema>;
/** A control of the screen as a locate request carries it: its role and box. */
export type LocateControl = NonNullable<LocateRequest["controls"]>[number];
/** `found` with a `box` in pixels of the sent screen, or not found with a reason. */
export type LocateAnswer = z.infer<typeof LocateAnswerSchema>;
/** Ask whether the screen satisfies a statement (a tap's `verify`). */
export type CheckRequest = z.infer<typeof CheckRequestSchema>;
/** Whether the statement holds, and why. */
export type CheckAnswer = z.infer<typeof CheckAnswerSchema>;
/** Ask whether a screenshot shows what the prompt describes, with other devices' baselines as references. */
export type JudgeRequest = z.infer<typeof JudgeRequestSchema>;
/** Accept or reject, with boxes of content that varies between runs. */
export type JudgeAnswer = z.infer<typeof JudgeAnswerSchema>;
/** Ask whether a pixel mismatch against the baseline is a real change. */
export type CompareRequest = z.infer<typeof CompareRequestSchema>;
/** Whether the difference is a real change, with boxes of content that varies. */
export type CompareAnswer = z.infer<typeof CompareAnswerSchema>;
/** Ask how likely a statement holds for an element or screen (`toSatisfy`), from its text and tree. */
export type SatisfyRequest = z.infer<typeof SatisfyRequestSchema>;
/** The probability that the statement holds, and why. */
export type SatisfyAnswer = z.infer<typeof SatisfyAnswerSchema>;
/** One observed control (see {@link ControlSchema}). */
export type Control = z.infer<typeof ControlSchema>;
/** A control's role. */
export type ControlRole = (typeof CONTROL_ROLES)[number];
/** An action of `ai.act`. */
export type ActAction = (typeof ACT_ACTIONS)[number];
/** One option of a `decide` answer. */
export type ActionChoice = z.infer<typeof ActionChoiceSchema>;
/** Ask for the next step towards a goal, chosen from the observed controls (`ai.act`). */
export type DecideRequest = z.infer<typeof DecideRequestSchema>;
/** The options for the next step, each with its probability. */
export type DecideAnswer = z.infer<typeof DecideAnswerSchema>;
/** Ask how likely the goal is reached on the current screen (`ai.act`'s completion check). */
export type CompleteRequest = z.infer<typeof CompleteRequestSchema>;
/** The probability that the goal is reached, and why. */
export type CompleteAnswer = z.infer<typeof CompleteAnswerSchema>;
/** A baseline of another device, sent to `judge` as a reference. */
export type Reference = z.infer<typeof ReferenceSchema>;

/** Any request a channel must answer. JSON-serialisable. */
export type AiRequest = z.infer<typeof AiRequestSchema>;
/** The request kinds: `locate`, `check`, `judge`, `compare`, `satisfy`, `decide`, `complete`. */
export type AiKind = AiRequest["kind"];
/** Every request kind, for option schemas keyed by kind. */
export const AI_KINDS = ["locate", "check", "judge", "compare", "satisfy", "decide", "complete"] as const;
// Fails to compile when a kind is added to the requests but not to AI_KINDS.
const _everyKindListed: [AiKind] extends [(typeof AI_KINDS)[number]] ? true : never = true;
void _everyKindListed;

/** The answer type of each request kind. */
export interface AiAnswers {
  locate: LocateAnswer;
  check: CheckAnswer;
  judge: JudgeAnswer;
  compare: CompareAnswer;
  satisfy: SatisfyAnswer;
  decide: DecideAnswer;
  complete: CompleteAnswer;
}
/** Any answer of a channel. */
export type AiAnswer = AiAnswers[AiKind];
/** The request of one kind. */
export type AiRequestOf<K extends AiKind> = Extract<AiRequest, { kind: K }>;

/** Options tapshot passes with every request. */
export interface AiRequestOptions {
  /** Aborts when the calling step's deadline passes or the caller aborts; honour it. */
  signal: AbortSignal;
  /**
   * Await it before each request sent to a model server, each retried attempt and a refinement
   * pass included: it claims a place in the run's `maxAiCalls` budget and throws a BudgetError when
   * the budget is spent (then send nothing). The first call is free: tapshot claimed one place
   * before asking the channel, so a channel that never calls it counts as one request per answer.
   */
  claim?: () => Promise<void>;
}

/**
 * A model request channel: the one seam between tapshot and any model. A test
 * runner supplies its own through `configureAi({ channel })`; the providers in
 * `tapshot/providers` implement it over @google/genai and openai.
 */
export interface AiChannel {
  /** Answer one request. The answer is validated against the kind's schema. */
  request(request: AiRequest, options: AiRequestOptions): Promise<AiAnswer>;
}

/** The answer schema of each kind, for validation and for providers' structured output. */
export const answerSchemas = {
  locate: LocateAnswerSchema,
  check: CheckAnswerSchema,
  judge: JudgeAnswerSchema,
  compare: CompareAnswerSchema,
  satisfy: SatisfyAnswerSchema,
  decide: DecideAnswerSchema,
  complete: CompleteAnswerSchema,
} as const;

/** Validate an answer of the given kind, or throw an {@link AiAnswerError} naming the kind and the issue. */
export function parseAnswer<K extends AiKind>(kind: K, answer: unknown): AiAnswers[K] {
  const result = answerSchemas[kind].safeParse(answer);
  if (!result.success) {
    throw new AiAnswerError(
      kind,
      `The model channel gave a malformed "${kind}" answer: ${describeZodError(result.error)}.`,
      { cause: result.error },
    );
  }
  return result.data as AiAnswers[K];
}

/**
 * Send a request on a channel and validate the answer. The channel is raced against the signal,
 * so a channel that ignores it still ends at the deadline, and a late answer is never used.
 */
export async function ask<K extends AiKind>(
  channel: AiChannel,
  request: AiRequestOf<K>,
  options: AiRequestOptions,
): Promise<AiAnswers[K]> {
  const { signal } = options;
  const answer: unknown = await untilAborted(
    Promise.resolve().then(() => channel.request(request, options)),
    signal,
  );
  signal.throwIfAborted();
  return parseAnswer(request.kind as K, answer);
}
