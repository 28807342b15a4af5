/*
 * Transfer (docs/transfer.md): a tap with nothing stored for this device, but stored on other
 * devices of the platform, tapped from their records without a model when the evidence is
 * unambiguous (src/core/flows/tap/transfer-evidence.ts), and stored like a learn, pending review.
 */
import { deviceDistance } from "../../device/description.js";
import { elementAt } from "../../device/page-source.js";
import { cropPng, toRect, type RawImage } from "../../pixels/images.js";
import type { Call } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import { readRecord, TapRecordSchema, type TapRecord } from "../../store/records.js";
import { CROP_PAD_UNITS } from "./crop-check.js";
import { tapAndVerify } from "./locate.js";
import type { TapDone, TapParams } from "./tap-params.js";
import { chooseTransfer, gatherEvidence, type TransferPlan, type TransferSource } from "./transfer-evidence.js";

/** The `model` of a transferred record and log entry. */
export const TRANSFER_MODEL = "local:transfer";
/** Sources tried, the closest in pixel density first. */
const MAX_SOURCES = 3;

/** What trying the sources gave: a value to store, or the evidence to send the model. */
export interface TransferAttempt {
  value?: NewValue<TapRecord, TapDone>;
  /** What each source's evidence lacked, as text for the model (as a heal's evidence). */
  evidence?: string;
}

/**
 * The tap's records on other devices of the platform (the key's file name under another device
 * slug) that are readable and of this orientation, the closest in pixel density and screen shape first.
 */
export async function transferSources(call: Call, key: string): Promise<TransferSource[]> {
  const [, platform, , file] = key.split("/");
  const own = new Set([call.deviceSlug, ...call.formerDeviceSlugs]);
  const keys = (await call.config.store.list(`taps/${platform}`))
    .map((k) => k.split("/"))
    .filter((parts) => parts.length === 4 && parts[3] === `${file}.json` && !own.has(parts[2]!))
    .map((parts) => parts.join("/").replace(/\.json$/, ""));
  const sources: TransferSource[] = [];
  for (const sourceKey of keys) {
    try {
      const stored = await readRecord(call.config.store, sourceKey, TapRecordSchema);
      // A scroll tap's swipes and a layout of the other orientation do not carry over.
      if (stored && !stored.record.scroll && stored.record.device.orientation === call.device.orientation) {
        sources.push({ key: sourceKey, ...stored });
      }
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
  params: Pick<TapParams, "verify">,
): Promise<{ plan: TransferPlan; source: TransferSource } | { why: string[] }> {
  const why: string[] = [];
  for (const source of sources) {
    const started = Date.now();
    const choice = chooseTransfer(call, await gatherEvidence(call, source, shot), params);
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
 * Try the sources before the model (mode auto, nothing stored here). A decided transfer is tapped,
 * `verify` checked, and returned as a new value; otherwise the evidence goes to the model.
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
  await tapAndVerify(call, plan.point, params.verify);
  call.log.answeredLocally(TRANSFER_MODEL);
  const { width, height } = call.device.screen;
  const crop = toRect(plan.box, width, height, CROP_PAD_UNITS * call.device.scale);
  const element = plan.element ?? (await elementOnScreen(call, plan));
  const reason =
    `transferred from ${source.key}.json (learned on ${source.record.device.model} by ${source.record.model}): ` +
    plan.evidence +
    (params.verify ? `, and "${params.verify}" held after the tap` : "");
  return {
    value: {
      fields: {
        kind: "tap",
        prompt: params.prompt,
        verify: params.verify ?? null,
        device: call.device,
        point: plan.point,
        box: plan.box,
        crop,
        model: TRANSFER_MODEL,
        reason,
        element,
      },
      image: await cropPng(shot.png, crop),
      done: { outcome: "learned", result: { point: plan.point }, detail: `transferred from ${source.key}.json` },
    },
  };
}

/** The element at a point the pixels found, when the page source of this screen was read. */
async function elementOnScreen(call: Call, plan: TransferPlan) {
  const reading = await call.pageSource();
  if ("skipped" in reading) return undefined;
  return elementAt(reading.elements, plan.point, call.device.platform, call.device.screen);
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
