/*
 * sharp (libvips), loaded on first use. Loading it maps libvips and starts its thread pool, about
 * 25 MB of resident memory, and a replay of a stored tap never needs it: the crop is decoded by
 * src/core/pixels/png-rows.ts and compared by src/core/pixels/pixel-diff.ts. Every module that uses sharp
 * gets it here, so a process that only replays never loads it (BENCHMARKS.md, figure 6).
 */
import type Sharp from "sharp";

let loading: Promise<typeof Sharp> | undefined;

/** The sharp module, imported once per process. */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import("sharp").then((module) => module.default);
  return loading;
}
