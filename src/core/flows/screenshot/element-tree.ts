/*
 * When the accessibility tree is read for a baseline (docs/storage.md, "The stored tree"): once
 * when a baseline is judged or healed (stored in the record's `tree`) and once when a comparison
 * fails (the changes are named first in the message, changed-elements.ts). Each read is the
 * call's page source, capped in size and time (src/core/device/page-source.ts) and ended by the
 * call's deadline.
 */
import { PAGE_SOURCE_TIMEOUT_MS } from "../../device/page-source.js";
import { untilAborted } from "../../ground/deadline.js";
import type { Call } from "../../run/call.js";
import type { NewValue, Use } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import { describeChanges, trimTree, type StoredTree } from "./changed-elements.js";
import type { PixelMismatch, ScreenshotDone, StoredBaseline } from "./pixel-check.js";

/** Share of the time left that a comparison keeps for reading the tree when it fails. */
const TREE_SHARE = 0.25;

/** The current screen's elements worth storing, or why there are none. */
type TreeRead = { tree: StoredTree } | { skipped: string };

async function readTree(call: Call): Promise<TreeRead> {
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

/**
 * Compare (`use`, which polls until the time it is given) and, on a mismatch, name the changed
 * elements first. Against a baseline with a tree, polling stops a share of the time early and the
 * current tree is read from then on, beside the failure's full count, so the read ends within the
 * call's budget; a comparison that matches never reads it (a read already started is dropped).
 */
export async function withChangesNamed(
  call: Call,
  stored: StoredBaseline,
  until: number,
  use: (until: number) => Promise<Use<ScreenshotDone, PixelMismatch>>,
): Promise<Use<ScreenshotDone, PixelMismatch>> {
  const storedTree = stored.record.tree;
  if (!storedTree) {
    const used = await use(until);
    if (!("mismatch" in used)) return used;
    return withText(
      used,
      `${used.mismatch.text}; no element named: the baseline was stored without an accessibility tree`,
    );
  }
  const readFrom = until - Math.min(PAGE_SOURCE_TIMEOUT_MS, Math.max(0, until - Date.now()) * TREE_SHARE);
  let reading: Promise<TreeRead> | undefined;
  const read = () => (reading ??= readTree(call));
  const timer = setTimeout(read, Math.max(0, readFrom - Date.now()));
  let used: Use<ScreenshotDone, PixelMismatch>;
  try {
    used = await use(readFrom);
  } finally {
    clearTimeout(timer);
  }
  if (!("mismatch" in used)) return used;
  const { mismatch } = used;
  const { raw: before, masks } = mismatch.baseline;
  const after = mismatch.shot.raw;
  if (before.width !== after.width || before.height !== after.height) return used;
  const current = await read();
  if ("skipped" in current) return withText(used, `${mismatch.text}; no element named: ${current.skipped}`);
  const named = describeChanges(storedTree.elements, current.tree.elements, {
    platform: call.device.platform,
    pixels: { before, after, masks },
  });
  if (!named) return used;
  const withNames: NamedMismatch = { ...mismatch, text: `${named}; ${mismatch.text}`, named };
  return { mismatch: withNames };
}

/** A mismatch whose changed elements were named. */
type NamedMismatch = PixelMismatch & { named?: string };

/** A healed baseline with the changes its mismatch named, for the review page (a `done` passes as is). */
export function withChangesOf<V extends NewValue<BaselineRecord, unknown> | { done: unknown }>(
  mismatch: PixelMismatch,
  value: V,
): V {
  const { named } = mismatch as NamedMismatch;
  if (!("fields" in value) || !named) return value;
  return { ...value, fields: { ...value.fields, changed: named } };
}

function withText(used: { mismatch: PixelMismatch }, text: string): { mismatch: PixelMismatch } {
  return { mismatch: { ...used.mismatch, text } };
}
