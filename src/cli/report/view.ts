/** What the report page shows, with every image already copied beside it. */
import path from "node:path";
import type { Box } from "../../core/model/contract.js";
import type { BaselineEntry, StoreModel, TapEntry } from "../model.js";
import { artifactLabel, keptFile, type Run, type RunEntry } from "../runs.js";
import type { ReportFiles } from "./files.js";
import { runTotals, type RunTotals } from "./totals.js";

/** A point or box inside an image, as percentages of its size (for CSS overlays). */
export interface Overlay {
  left: number;
  top: number;
  width?: number;
  height?: number;
}

export interface TapView {
  entry: TapEntry;
  crop?: string;
  /** The tap point on the crop. */
  point: Overlay;
  before?: { crop?: string; point: Overlay };
  healedInLastRun: boolean;
}

export interface BaselineView {
  entry: BaselineEntry;
  image?: string;
  varying: Overlay[];
  /** Where the record's prompt masks were located, with their prompts. */
  promptMasks: { prompt: string; box: Overlay }[];
  before?: string;
  healedInLastRun: boolean;
}

/** Baselines of one platform: a row per name, a column per device. */
export interface BaselineGrid {
  platform: string;
  devices: string[];
  rows: { name: string; cells: (BaselineView | undefined)[] }[];
}

export interface ArtifactView {
  label: string;
  /** Relative URL of the copied file. */
  url?: string;
  /** What the run named, when it is no file in the run's folder (a URL, another path, a deleted file): shown as text. */
  notCopied?: string;
}

export interface CallView {
  run: string;
  entry: RunEntry;
  artifacts: ArtifactView[];
}

export interface ReportView {
  generatedAt: string;
  store: StoreModel;
  runs: Run[];
  grids: BaselineGrid[];
  taps: TapView[];
  heals: (TapView | BaselineView)[];
  calls: CallView[];
  failures: CallView[];
  /** What the shown runs' model calls cost, and the values used without a model. */
  totals: RunTotals;
}

/** `box` inside `frame` (offset by `x0`, `y0`), in percent. */
export function overlay(box: Box, frame: Box | { width: number; height: number }, x0 = 0, y0 = 0): Overlay {
  const pct = (v: number, of: number) => Math.round((v / of) * 10_000) / 100;
  return {
    left: pct(box.x - x0, frame.width),
    top: pct(box.y - y0, frame.height),
    ...(box.width ? { width: pct(box.width, frame.width), height: pct(box.height, frame.height) } : {}),
  };
}

/** A point on a crop, as an overlay of the crop image. */
export const pointIn = (p: { x: number; y: number }, crop: Box) =>
  overlay({ ...p, width: 0, height: 0 }, crop, crop.x, crop.y);

export async function buildView(store: StoreModel, runs: Run[], files: ReportFiles): Promise<ReportView> {
  const calls = runs.flatMap((run) => run.entries.map((entry) => ({ run, entry })));
  const healedNow = new Set(
    calls
      .filter(({ entry }) => entry.outcome === "healed")
      .map(
        ({ entry }) =>
          `${entry.api === "tap" ? "tap" : "baseline"}\u0000${entry.device}\u0000${entry.prompt ?? entry.name}`,
      ),
  );
  const healedInLastRun = (kind: string, device: string, subject: string) =>
    healedNow.has(`${kind}\u0000${device}\u0000${subject}`);

  const taps: TapView[] = [];
  for (const entry of store.taps) {
    const r = entry.record;
    const view: TapView = {
      entry,
      crop: await files.addStored(store.store, `${entry.key}.png`, `store/${entry.key}.png`),
      point: pointIn(r.point, r.crop),
      healedInLastRun: healedInLastRun("tap", entry.device, entry.subject),
    };
    if (r.previous) {
      view.before = {
        ...(entry.files.previousImage
          ? { crop: await files.addStored(store.store, `${entry.key}.previous.png`, `store/${entry.key}.previous.png`) }
          : {}),
        point: pointIn(r.previous.point, r.previous.crop),
      };
    }
    taps.push(view);
  }

  const baselines: BaselineView[] = [];
  for (const entry of store.baselines) {
    const r = entry.record;
    baselines.push({
      entry,
      image: await files.addStored(store.store, `${entry.key}.png`, `store/${entry.key}.png`),
      varying: r.varying.map((box) => overlay(box, r.device.screen)),
      promptMasks: (r.promptMasks ?? []).flatMap((m) =>
        m.box ? [{ prompt: m.prompt, box: overlay(m.box, r.device.screen) }] : [],
      ),
      ...(entry.files.previousImage
        ? { before: await files.addStored(store.store, `${entry.key}.previous.png`, `store/${entry.key}.previous.png`) }
        : {}),
      healedInLastRun: healedInLastRun("baseline", entry.device, entry.subject),
    });
  }

  const callViews: CallView[] = [];
  for (const { run, entry } of calls) {
    const artifacts: ArtifactView[] = [];
    for (const where of entry.artifacts ?? []) artifacts.push(await artifactView(run, where, files));
    callViews.push({ run: run.id, entry, artifacts });
  }

  return {
    generatedAt: new Date().toISOString(),
    store,
    runs,
    grids: gridsOf(baselines),
    taps,
    heals: [...taps.filter((t) => t.before), ...baselines.filter((b) => b.entry.record.previous)],
    calls: callViews,
    failures: callViews.filter((c) => c.entry.outcome === "failed"),
    totals: runTotals(calls.map((c) => c.entry)),
  };
}

/** A run record's artifact: copied when it is a file in the run's folder, else only named (a URL is never embedded). */
async function artifactView(run: Run, where: string, files: ReportFiles): Promise<ArtifactView> {
  const label = artifactLabel(where);
  const real = await keptFile(run, where);
  const url = real && (await files.add(real, `runs/${run.id}/${path.basename(real)}`, run.dir));
  return url ? { label, url } : { label, notCopied: where };
}

function gridsOf(baselines: BaselineView[]): BaselineGrid[] {
  const grids: BaselineGrid[] = [];
  for (const platform of [...new Set(baselines.map((b) => b.entry.platform))].sort()) {
    const mine = baselines.filter((b) => b.entry.platform === platform);
    const devices = [...new Set(mine.map((b) => b.entry.device))].sort();
    const names = [...new Set(mine.map((b) => b.entry.subject))].sort();
    grids.push({
      platform,
      devices,
      rows: names.map((name) => ({
        name,
        cells: devices.map((device) => mine.find((b) => b.entry.subject === name && b.entry.device === device)),
      })),
    });
  }
  return grids;
}
