/**
 * Wire doubles of the model APIs, for provider tests and the e2e rig: real HTTP servers on
 * 127.0.0.1 that the real SDK clients talk to. They are not models and say so in every
 * answer (`double:gemini-wire/...`, `double:openai-wire/...`).
 *
 * - `startGeminiDouble(knowledge, options)`: Gemini `generateContent`.
 * - `startOpenAiDouble(knowledge, options)`: OpenAI / Azure OpenAI Chat Completions, or an
 *   OpenAI-compatible server (`server`), answering in a model family's box frame (`family`).
 *
 * Both are strict: they refuse what the real service refuses (./gemini-rules.ts, ./openai-rules.ts),
 * each rule with its source.
 *
 * Both return a {@link WireDouble}: `baseUrl`, `requests` (raw bodies), `received` (decoded:
 * kind, images with their sizes, the user's text, a refinement crop, and for `ai.act`'s `decide` and
 * `complete` the controls, value names and history read back from the text), `calls(kind?)`,
 * `inject(fault, times)` (HTTP status, `"hang"`, `"malformed"`, `"not-json"`, `"garbage"`,
 * `"refusal"`, `"blocked"`) and `close()`.
 */
export { startGeminiDouble, type GeminiDoubleOptions } from "./gemini-double.js";
export { startOpenAiDouble, type OpenAiDoubleOptions } from "./openai-double.js";
export type { WireDouble } from "./server.js";
export type {
  Box,
  CheckResult,
  CompareResult,
  CompleteResult,
  DecideResult,
  DoubleChoice,
  DoubleControl,
  DoubleImage,
  Fault,
  ImageFrame,
  JudgeResult,
  Kind,
  Knowledge,
  LocateResult,
  ReceivedRequest,
  SatisfyResult,
} from "./knowledge.js";
