/*
 * Transfer (docs/transfer.md): a tap with nothing stored for this device, but stored on other
 * devices of the platform, tapped from their records without a model when every piece of
 * evidence agrees (src/core/flows/tap/transfer-evidence.ts), and stored like a learn, pending
 * review. Only a model's answer or a value a person accepted is a source; `verify` is never
 * asked after a transfer, which is certain without it or does not happen.
 */
import { deviceDistance } from "../../device/description.js";
import { cropPng } from "../../pixels/image-encode.js";
import { toRect } from "../../pixels/pixel-rects.js";
import type { RawImage } from "../../pixels/image-decode.js";
import type { Call } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import { readRecord } from "../../store/record-io.js";
import { reviewOf } from "../../store/review-state.js";
import { TapRecordSchema, type TapRecord } from "../../store/tap-record.js";
import { CROP_PAD_UNITS } from "./crop-check.js";
import { actOn } from "./locate.js";
import type { TapDone, TapParams } from "./tap-params.js";
import { chooseTransfer, gatherEvidence, type TransferPlan, type TransferSource } from "./transfer-evidence.js";

/** The `model` of a transferred record and log entry. */
export const TRANSFER_MODEL = "local:transfer";
/** Sources tried, the closest in pixel density first. */
const MAX_SOURCES = 3;
/** The `model` prefix of values found without a model (a transfer, the heal ladder's local rungs). */
const LOCAL_MODEL_PREFIX = "local:";

/** What trying the sources gave: a value to store, or the evidence to send the model. */
export interface TransferAttempt {
  value?: NewValue<TapRecord, TapDone>;
  /** What each source's evidence lacked, as text for the model (as a heal's evidence). */
  evidence?: string;
}

/**
 * Why a record is no source, or `undefined` when it is one: a value found without a model (a
 * transfer, a local heal) is evidence of nothing until a person accepts it.
 */
export function notASource(record: TapRecord): string | undefined {
  if (!record.model.startsWith(LOCAL_MODEL_PREFIX) || reviewOf(record).state === "accepted") return undefined;
  return `found without a model (${record.model}) and not accepted in review`;
}

/**
 * The tap's records on other devices of the platform (the key's file name under another device
 * slug) that are readable, of this orientation and sources ({@link notASource}), the closest in
 * pixel density and screen shape first.
 */
async function transferSources(call: Call, key: string): Promise<TransferSource[]> {
  const [kindFolder, platform, , file] = key.split("/");
  const own = new Set([call.deviceSlug, ...call.formerDeviceSlugs]);
  const keys = (await call.config.store.list(`${kindFolder}/${platform}`))
    .map((k) => k.split("/"))
    .filter((parts) => parts.length === 4 && parts[3] === `${file}.json` && !own.has(parts[2]!))
    .map((parts) => parts.join("/").replace(/\.json$/, ""));
  const sources: TransferSource[] = [];
  for (const sourceKey of keys) {
    try {
      const stored = await readRecord(call.config.store, sourceKey, TapRecordSchema);
      // A scroll tap's swipes and a layout of the other orientation do not carry over.
      if (!stored || stored.record.scroll || stored.record.device.orientation !== call.device.orientation) continue;
      const not = notASource(stored.record);
      if (not) call.note(`transfer: ${sourceKey}.json not used: ${not}`);
      else sources.push({ key: sourceKey, ...stored });
    } catch (error) {
      call.note(`transfer: ${sourceKey}.json not used: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  const distance = (r: TapRecord) => deviceDistance(call.device, r.device);
  return sources.sort((a, b) => distance(a.record) - distance(b.record)).slice(0, MAX_SOURCES);
}

/** Weigh each source's evidence; the first that decides is planned, with the source it came from. */
async function decide(
  call: Call,
  sources: TransferSource[],
  shot: { raw: RawImage },
  params: Pick<TapParams, "prompt">,
): Promise<{ plan: TransferPlan; source: TransferSource } | { why: string[] }> {
  const why: string[] = [];
  for (const source of sources) {
    const started = Date.now();
    const choice = chooseTransfer(await gatherEvidence(call, source, shot, params));
    const took = `${Date.now() - started} ms`;
    if ("plan" in choice) {
      call.note(`transfer from ${source.key}.json: ${choice.plan.evidence} (${took})`);
      return { plan: choice.plan, source };
    }
    call.note(`transfer from ${source.key}.json not possible: ${choice.why} (${took})`);
    why.push(`From the tap stored on ${source.record.device.model} (${source.key}.json): ${choice.why}.`);
  }
  return { why };
}

/**
 * Try the sources before the model (mode auto, nothing stored here). A decided transfer is tapped
 * and returned as a new value, its `verify` not asked (the evidence was certain without it);
 * otherwise nothing is tapped and the evidence goes to the model.
 */
export async function tryTransfer(
  call: Call,
  key: string,
  shot: { png: Buffer; raw: RawImage },
  params: TapParams,
): Promise<TransferAttempt> {
  const sources = await transferSources(call, key);
  if (!sources.length) return {};
  const decided = await decide(call, sources, shot, params);
  if (!("plan" in decided)) return { evidence: decided.why.join("\n").slice(0, 4000) };
  const { plan, source } = decided;
  await actOn(call, plan.point, { kind: params.kind, verify: undefined });
  call.log.answeredLocally(TRANSFER_MODEL);
  const { width, height } = call.device.screen;
  const crop = toRect(plan.box, width, height, CROP_PAD_UNITS * call.device.scale);
  const reason =
    `transferred from ${source.key}.json (learned on ${source.record.device.model} by ${source.record.model}): ` +
    plan.evidence +
    (params.verify ? `; "${params.verify}" was not asked after the tap (a transfer is certain without it)` : "");
  return {
    value: {
      fields: {
        kind: params.kind ?? "tap",
        prompt: params.prompt,
        verify: params.verify ?? null,
        device: call.device,
        point: plan.point,
        box: plan.box,
        crop,
        model: TRANSFER_MODEL,
        reason,
        element: plan.element,
      },
      image: await cropPng(shot.png, crop),
      done: { outcome: "learned", result: { point: plan.point }, detail: `transferred from ${source.key}.json` },
    },
  };
}

/**
 * For mode replay's NotStoredError: whether a transfer would have been possible here, weighed on
 * the screen now shown, nothing tapped or stored; `""` when no other device has the tap.
 */
export async function transferHint(
  call: Call,
  key: string,
  screenshot: () => Promise<{ raw: RawImage }>,
  params: TapParams,
): Promise<string> {
  if (!params.transfer || params.scroll) return "";
  const sources = await transferSources(call, key);
  if (!sources.length) return "";
  const decided = await decide(call, sources, await screenshot(), params);
  if ("plan" in decided) {
    return (
      ` A transfer from ${decided.source.key}.json would have been possible (${decided.plan.evidence}), ` +
      `but mode "replay" writes nothing: run once in mode "auto" to store it (docs/transfer.md).`
    );
  }
  return ` The tap is stored on other devices, but a transfer was not possible here: ${decided.why.join(" ")}`;
}
