/*
 * The AI contract: the five request kinds tapshot sends to a model channel, and
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

/** A rectangle in pixels of the image it refers to; `x`/`y` is the top-left corner. */
export const BoxSchema = z.object({
  x: z.number().finite().nonnegative(),
  y: z.number().finite().nonnegative(),
  width: z.number().finite().positive(),
  height: z.number().finite().positive(),
});
/** A rectangle in pixels of the image it refers to; `x`/`y` is the top-left corner. */
export type Box = Rect;

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

export const AiRequestSchema = z.discriminatedUnion("kind", [
  LocateRequestSchema,
  CheckRequestSchema,
  JudgeRequestSchema,
  CompareRequestSchema,
  SatisfyRequestSchema,
]);

/** Ask where one element is. Answer: {@link LocateAnswer}. */
export type LocateRequest = z.infer<typeof LocateRequestSchema>;
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
/** A baseline of another device, sent to `judge` as a reference. */
export type Reference = z.infer<typeof ReferenceSchema>;

/** Any request a channel must answer. JSON-serialisable. */
export type AiRequest = z.infer<typeof AiRequestSchema>;
/** The request kinds: `locate`, `check`, `judge`, `compare`, `satisfy`. */
export type AiKind = AiRequest["kind"];
/** Every request kind, for option schemas keyed by kind. */
export const AI_KINDS = ["locate", "check", "judge", "compare", "satisfy"] as const;
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
