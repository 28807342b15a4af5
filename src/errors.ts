/**
 * The errors every entry exports: what tapshot throws on purpose, each with a stable `code`
 * (docs/configuration.md, "Errors"). Helpers of the errors module stay internal.
 */
export {
  TapshotError,
  ConfigError,
  InputError,
  AiAnswerError,
  ProviderError,
  NotStoredError,
  ElementNotFoundError,
  VerifyFailedError,
  ReplayMismatchError,
  ScreenshotMismatchError,
  NotSatisfiedError,
  RejectedError,
  StoreError,
  TimeoutError,
  AbortedError,
  DeviceError,
  BudgetError,
  type TapshotErrorCode,
} from "./core/ground/errors.js";
