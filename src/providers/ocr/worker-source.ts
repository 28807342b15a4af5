/**
 * The OCR worker's code, run by `new Worker(WORKER_SOURCE, { eval: true })`. It is plain
 * JavaScript in a string so that it needs no build step and no file beside the bundle.
 * It imports the optional packages from the file URLs the main thread resolved, loads the
 * models once, then answers `read` messages one at a time.
 */

/** A message to the worker. */
export type WorkerRequest =
  { id: number; kind: "load" } | { id: number; kind: "read"; width: number; height: number; pixels: Uint8Array };

/** The worker's answer to the request with the same `id`. */
export interface WorkerReply {
  id: number;
  lines?: { text: string; box: { x: number; y: number; width: number; height: number }; confidence: number }[];
  error?: string;
}

export const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { readFile } = require("node:fs/promises");

const SESSION_OPTIONS = workerData.sessionOptions;
const toArrayBuffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);

async function load() {
  const [paddle, ortModule, modelsModule] = await Promise.all([
    import(workerData.paddleocr),
    import(workerData.ort),
    import(workerData.models),
  ]);
  const realOrt = ortModule.default && ortModule.default.InferenceSession ? ortModule.default : ortModule;
  // paddleocr creates its sessions without options; this passes the engine's own.
  const ort = {
    Tensor: realOrt.Tensor,
    InferenceSession: {
      create: (model) => realOrt.InferenceSession.create(model, SESSION_OPTIONS),
    },
  };
  const paths = modelsModule.default;
  const [det, rec, dict] = await Promise.all([
    readFile(paths.detectionPath),
    readFile(paths.recognitionPath),
    readFile(paths.dictionaryPath, "utf8"),
  ]);
  return paddle.PaddleOcrService.createInstance({
    ort,
    modelPreset: "PP-OCRv5_mobile",
    detection: { modelBuffer: toArrayBuffer(det) },
    recognition: {
      modelBuffer: toArrayBuffer(rec),
      // PP-OCRv4's recogniser has one class more than ppocr_keys_v1.txt lists: the space.
      charactersDictionary: [...dict.trimEnd().split(/\r?\n/), " "],
    },
  });
}

function clamp(box, width, height) {
  const x = Math.max(0, box.x), y = Math.max(0, box.y);
  const right = Math.min(width, box.x + box.width), bottom = Math.min(height, box.y + box.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

let service;
let queue = Promise.resolve();

async function handle(message) {
  if (message.kind === "load") {
    service ??= await load();
    return [];
  }
  service ??= await load();
  const results = await service.recognize({ width: message.width, height: message.height, data: message.pixels });
  const lines = [];
  for (const r of results) {
    // The model's dictionary holds full-width forms of some ASCII signs.
    const text = r.text.normalize("NFKC").trim();
    const box = clamp(r.box, message.width, message.height);
    if (text && box) lines.push({ text, box, confidence: r.confidence });
  }
  return lines;
}

parentPort.on("message", (message) => {
  queue = queue.then(async () => {
    try {
      parentPort.postMessage({ id: message.id, lines: await handle(message) });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: error instanceof Error ? (error.code ? error.code + ": " : "") + error.message : String(error) });
    }
  });
});
`;
