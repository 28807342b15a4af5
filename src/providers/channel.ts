/**
 * The part every provider shares: turn a tapshot request into a model turn (prepared
 * images + the kind's prompt), send it through the provider's backend with retries, and
 * turn the model's JSON into a validated answer with boxes in pixels of the request's
 * images. For `locate`, an optional refinement pass asks again on a zoomed crop.
 */
import { describeZodError } from "../core/ground/zod-errors.js";
import {
  AiRequestSchema,
  parseAnswer,
  type AiAnswer,
  type AiChannel,
  type AiKind,
  type AiRequest,
  type AiRequestOf,
  type AiRequestOptions,
  type Usage,
} from "../core/model/contract.js";
import { InputError } from "../core/ground/errors.js";
import type { Failure, ProviderIdentity } from "./failure.js";
import { prepareImage, refinementRegion, type ImagePlan, type PreparedImage } from "./images.js";
import type { RetryOptions } from "./options.js";
import {
  checkInstruction,
  compareInstruction,
  completeInstruction,
  decideInstruction,
  judgeInstruction,
  locateInstruction,
  refineInstruction,
  satisfyInstruction,
  userParts,
  type Turn,
} from "./prompts.js";
import { withRetries } from "./retry.js";
import {
  addUsage,
  BeyondImageError,
  fromBoxlessWire,
  fromWire,
  parseWire,
  type AnswerCore,
  type BoxConvention,
  type BoxlessKind,
} from "./wire.js";

/** The model's reply to one turn. */
export interface ModelReply {
  /** The JSON text the model wrote. */
  text: string;
  /** The model name the server reports (e.g. a dated snapshot), when it reports one. */
  model?: string;
  usage?: Usage;
}

/** What a provider supplies: one attempt at one turn, and how to read its SDK's errors. */
export interface ModelBackend {
  id: ProviderIdentity;
  boxes: BoxConvention;
  image: ImagePlan;
  refine: boolean;
  retry?: RetryOptions;
  /**
   * Send one turn and return the model's text. Throw what the SDK throws for transport and
   * HTTP failures (`classify` reads it), or a ProviderError for a refusal.
   */
  send(turn: Turn, kind: AiKind, signal: AbortSignal): Promise<ModelReply>;
  /** Read a failed attempt at a request of `kind`. */
  classify(error: unknown, kind: AiKind): Failure;
}

interface Asked {
  core: AnswerCore;
  model?: string;
  usage?: Usage;
}

/** A turn's answer as the model wrote it: wire JSON, boxes unread. */
type RawAsked = Omit<Asked, "core"> & { core: Record<string, unknown> };

/** What every kind's turn uses: the backend, its image plan, and the two ways to ask. */
interface Asking {
  backend: ModelBackend;
  plan: ImagePlan;
  /** Ask one turn and read its boxes in the frame of `frame`. */
  ask(kind: AiKind, turn: Turn, frame: PreparedImage, sending: AiRequestOptions): Promise<Asked>;
  /** Ask one turn and return its wire JSON, boxes unread. */
  askRaw(kind: AiKind, turn: Turn, sending: AiRequestOptions): Promise<RawAsked>;
}

/** One kind's turn: build it from the request, ask, and read the answer. */
type KindTurn<K extends AiKind> = (
  asking: Asking,
  request: AiRequestOf<K>,
  sending: AiRequestOptions,
) => Promise<Asked>;

/** Build an {@link AiChannel} over a provider's backend. */
export function modelChannel(backend: ModelBackend): AiChannel {
  const asking = askingOver(backend);
  return {
    async request(request: AiRequest, options: AiRequestOptions): Promise<AiAnswer> {
      const checked = AiRequestSchema.safeParse(request);
      if (!checked.success) {
        throw new InputError(
          `The ${backend.id.provider} provider got an invalid request: ${describeZodError(checked.error)}.`,
        );
      }
      const turn = TURNS[checked.data.kind] as KindTurn<AiKind>;
      const { core, model, usage } = await turn(asking, checked.data, options);
      return parseAnswer(request.kind, { ...core, model: model || backend.id.model, ...(usage ? { usage } : {}) });
    },
  };
}

function askingOver(backend: ModelBackend): Asking {
  /** One turn, retried; every attempt claims its place in the budget before it is sent. */
  async function askRaw(kind: AiKind, turn: Turn, { signal, claim }: AiRequestOptions): Promise<RawAsked> {
    const reply = await withRetries(
      backend.id,
      backend.retry,
      signal,
      (e) => backend.classify(e, kind),
      async () => {
        await claim?.();
        return backend.send(turn, kind, signal);
      },
    );
    return { core: parseWire(kind, reply.text, backend.boxes), model: reply.model, usage: reply.usage };
  }
  return {
    backend,
    plan: backend.image,
    askRaw,
    async ask(kind, turn, frame, sending) {
      const { core, model, usage } = await askRaw(kind, turn, sending);
      return { core: fromWire(kind, core, backend.boxes, frame), model, usage };
    },
  };
}

/** Ask a turn of a kind whose answer has no boxes: the wire answer is read without an image frame. */
async function askBoxless(asking: Asking, kind: BoxlessKind, turn: Turn, sending: AiRequestOptions): Promise<Asked> {
  const { core, model, usage } = await asking.askRaw(kind, turn, sending);
  return { core: fromBoxlessWire(kind, core), model, usage };
}

/**
 * A refinement answer in the crop's frame, as asked; or, when its pixel box reaches beyond the crop but
 * lies inside the crop's region of the screenshot, read as the screenshot's pixels (the other frame the
 * prompt mentions). Anything else is rejected: undefined, and the first box stands.
 */
function refinedCore(
  boxes: BoxConvention,
  wire: Record<string, unknown>,
  crop: PreparedImage,
  screen: { width: number; height: number },
): AnswerCore | undefined {
  try {
    return fromWire("locate", wire, boxes, crop);
  } catch (error) {
    if (!(error instanceof BeyondImageError)) throw error;
  }
  const whole: PreparedImage = {
    sent: { ...crop.sent, width: screen.width, height: screen.height },
    region: { x: 0, y: 0, width: screen.width, height: screen.height },
  };
  try {
    const core = fromWire("locate", wire, boxes, whole);
    const box = "box" in core ? core.box : undefined;
    const r = crop.region;
    const cx = box ? box.x + box.width / 2 : -1;
    const cy = box ? box.y + box.height / 2 : -1;
    return cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height ? core : undefined;
  } catch (error) {
    if (error instanceof BeyondImageError) return undefined;
    throw error;
  }
}

const locateTurn: KindTurn<"locate"> = async ({ backend, plan, ask, askRaw }, request, sending) => {
  const { boxes } = backend;
  const screen = await prepareImage(request.screen, plan);
  const reference = request.reference ? await prepareImage(request.reference, plan) : undefined;
  const first = await ask(
    "locate",
    {
      system: locateInstruction(boxes, screen, !!reference),
      parts: userParts.locate(request.prompt, screen, reference, request.evidence),
    },
    screen,
    sending,
  );
  if (!backend.refine || !("found" in first.core) || !first.core.found || !first.core.box) return first;

  const region = refinementRegion(first.core.box, request.screen);
  const crop = await prepareImage(request.screen, plan, region);
  const second = await askRaw(
    "locate",
    { system: refineInstruction(boxes, crop), parts: userParts.refine(request.prompt, crop, request.screen) },
    sending,
  );
  const usage = addUsage(first.usage, second.usage);
  const core = refinedCore(boxes, second.core, crop, request.screen);
  // The crop may cut the element off, or the answer fit neither frame; then the first, coarser box stands.
  const refined = core && "found" in core && core.found ? core : first.core;
  return { core: refined, model: second.model ?? first.model, usage };
};

const checkTurn: KindTurn<"check"> = async ({ plan, ask }, request, sending) => {
  const screen = await prepareImage(request.screen, plan);
  const turn = { system: checkInstruction(), parts: userParts.check(request.statement, screen) };
  return ask("check", turn, screen, sending);
};

const judgeTurn: KindTurn<"judge"> = async ({ backend, plan, ask }, request, sending) => {
  const screen = await prepareImage(request.screen, plan);
  const references = await Promise.all(
    request.references.map(async (r) => ({ device: r.device, image: await prepareImage(r.image, plan) })),
  );
  const turn = {
    system: judgeInstruction(backend.boxes, screen, references.length),
    parts: userParts.judge(request.prompt, screen, references),
  };
  return ask("judge", turn, screen, sending);
};

const compareTurn: KindTurn<"compare"> = async ({ backend, plan, ask }, request, sending) => {
  // The diff is sent lossless: its red pixels are the point.
  const diffPlan: ImagePlan = { ...plan, format: "png" };
  const [baseline, screen, diff] = await Promise.all([
    prepareImage(request.baseline, plan),
    prepareImage(request.screen, plan),
    prepareImage(request.diff, diffPlan),
  ]);
  const turn = {
    system: compareInstruction(backend.boxes, screen),
    parts: userParts.compare(request.prompt, baseline, screen, diff),
  };
  return ask("compare", turn, screen, sending);
};

const satisfyTurn: KindTurn<"satisfy"> = async (asking, request, sending) => {
  const screen = request.screen ? await prepareImage(request.screen, asking.plan) : undefined;
  const turn = {
    system: satisfyInstruction(!!screen),
    parts: userParts.satisfy(request.statement, request.evidence, screen, request.context),
  };
  return askBoxless(asking, "satisfy", turn, sending);
};

const decideTurn: KindTurn<"decide"> = async (asking, request, sending) => {
  const screen = await prepareImage(request.screen, asking.plan);
  return askBoxless(
    asking,
    "decide",
    { system: decideInstruction(), parts: userParts.decide(request, screen) },
    sending,
  );
};

const completeTurn: KindTurn<"complete"> = async (asking, request, sending) => {
  const screen = await prepareImage(request.screen, asking.plan);
  const turn = { system: completeInstruction(), parts: userParts.complete(request, screen) };
  return askBoxless(asking, "complete", turn, sending);
};

/** Each kind's turn. */
const TURNS: { [K in AiKind]: KindTurn<K> } = {
  locate: locateTurn,
  check: checkTurn,
  judge: judgeTurn,
  compare: compareTurn,
  satisfy: satisfyTurn,
  decide: decideTurn,
  complete: completeTurn,
};
