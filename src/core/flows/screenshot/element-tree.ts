/**
 * When the accessibility tree is read for a baseline (docs/storage.md, "The stored tree"): once
 * when a baseline is judged or healed (stored in the record's `tree`) and once when a comparison
 * fails (the changes are named first in the message, changed-elements.ts). Each read is the
 * call's page source, capped in size and time (src/core/device/page-source.ts), and within the
 * call's budget: a comparison against a baseline with a tree leaves time for it.
 */
import { PAGE_SOURCE_TIMEOUT_MS } from "../../device/page-source.js";
import { untilAborted } from "../../ground/deadline.js";
import type { Call } from "../../run/call.js";
import type { NewValue, Use } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/records.js";
import { describeChanges, trimTree, type StoredTree } from "./changed-elements.js";
import type { PixelMismatch, ScreenshotDone, StoredBaseline } from "./pixel-check.js";

/** Share of the time left that a comparison keeps for reading the tree when it fails. */
const TREE_SHARE = 0.25;

/** The current screen's elements worth storing, or why there are none. */
async function readTree(call: Call): Promise<{ tree: StoredTree } | { skipped: string }> {
  try {
    const reading = await untilAborted(call.pageSource(), call.deadline.signal);
    if ("skipped" in reading) return { skipped: reading.skipped };
    const { width, height } = call.device.screen;
    return { tree: trimTree(reading.elements, call.device.platform, { x: 0, y: 0, width, height }) };
  } catch (error) {
    return { skipped: `reading the page source failed: ${(error as Error).message}` };
  }
}

/** A judged or healed baseline with its screen's tree (a `done` passes as is). */
export async function withTree<V extends NewValue<BaselineRecord, unknown> | { done: unknown }>(
  call: Call,
  value: V,
): Promise<V> {
  if (!("fields" in value)) return value;
  const read = await readTree(call);
  if ("skipped" in read) {
    call.note(`no accessibility tree stored with the baseline: ${read.skipped}`);
    return value;
  }
  return { ...value, fields: { ...value.fields, tree: read.tree } };
}

/** When to stop polling for a match: early enough to read the tree on a failure, when the baseline has one. */
export function untilBeforeTree(call: Call, stored: StoredBaseline, until: number): number {
  if (!stored.record.tree) return until;
  const left = Math.max(0, until - Date.now());
  return until - Math.min(PAGE_SOURCE_TIMEOUT_MS, left * TREE_SHARE);
}

/** A mismatch with the changed elements named first, or with why none are named. */
export async function nameChanges(
  call: Call,
  stored: StoredBaseline,
  used: Use<ScreenshotDone, PixelMismatch>,
): Promise<Use<ScreenshotDone, PixelMismatch>> {
  if (!("mismatch" in used)) return used;
  const { mismatch } = used;
  const { before, after } = { before: mismatch.baseline.raw, after: mismatch.shot.raw };
  if (before.width !== after.width || before.height !== after.height) return used;
  const storedTree = stored.record.tree;
  if (!storedTree) {
    return withText(used, `${mismatch.text}; no element named: the baseline was stored without an accessibility tree`);
  }
  const read = await readTree(call);
  if ("skipped" in read) return withText(used, `${mismatch.text}; no element named: ${read.skipped}`);
  const named = describeChanges(storedTree.elements, read.tree.elements, {
    platform: call.device.platform,
    pixels: { before, after, masks: mismatch.baseline.masks },
  });
  return named ? withText(used, `${named}; ${mismatch.text}`) : used;
}

function withText(used: { mismatch: PixelMismatch }, text: string): { mismatch: PixelMismatch } {
  return { mismatch: { ...used.mismatch, text } };
}
