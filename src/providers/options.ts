/* Options every provider in `tapshot/providers` accepts. */

/** How screenshots are downscaled and encoded before they are sent to the model. */
export interface ImageOptions {
  /** Longest side in pixels of a sent screenshot; larger ones are downscaled. Default 1280. */
  maxSide?: number;
  /**
   * Encoding of screenshots, baselines and crops. Diff images are always PNG. Default `"webp"` for
   * Gemini, OpenAI and Azure, `"jpeg"` for other OpenAI-compatible servers (Ollama, llama.cpp and
   * LM Studio mishandle WebP).
   */
  format?: "webp" | "jpeg" | "png";
  /** Lossy quality (WebP, JPEG), 1-100. Default 80. */
  quality?: number;
}

/** Retries of rate-limited (429), overloaded (408, 5xx) and dropped requests, always within the call's deadline. */
export interface RetryOptions {
  /** Attempts in all, including the first. Default 4; 1 turns retries off. */
  attempts?: number;
  /** Wait before the first retry, doubled after each (with jitter). Default 500 ms. */
  initialDelayMs?: number;
  /** Longest wait between attempts, also the cap on a server's `Retry-After`. Default 8000 ms. */
  maxDelayMs?: number;
}

/** Options shared by {@link GeminiOptions}, {@link OpenAiOptions} and {@link AzureOpenAiOptions}. */
export interface CommonProviderOptions {
  /** Downscaling and encoding of sent images. */
  image?: ImageOptions;
  /** Retries within the call's deadline. */
  retry?: RetryOptions;
  /**
   * For `locate`: after the first answer, ask again on a zoomed crop around the element and
   * use that box (the first box stays when the second pass finds nothing). Costs one more
   * request per locate. Default: `true` for OpenAI and Azure OpenAI, `false` for Gemini.
   */
  refine?: boolean;
}
