/**
 * Expected / actual / diff side by side, each opening full size, plus a slider that wipes from the
 * expected image to the actual one over the same frame (docs/reviewing.md "Looking at a change").
 * The slider is a native range input, so the keyboard moves it (arrows, Home, End); its few lines of
 * inline script ({@link COMPARE_SCRIPT}) fetch nothing, so the pages stay self-contained.
 */
import { esc } from "./escape.js";
import type { BaselineRecord } from "../../core/store/baseline-record.js";
import { overlay, type Overlay } from "./view.js";

/** An overlay's CSS position. */
export const pct = (o: Overlay) =>
  `left:${o.left}%;top:${o.top}%` + (o.width !== undefined ? `;width:${o.width}%;height:${o.height}%` : "");

/** Boxes drawn over an image: `varying` (ignored content) or `prompt-mask` (what a prompt masked). */
export function boxOverlays(boxes: Overlay[], kind: "varying" | "prompt-mask", titles: string[] = []): string {
  return boxes
    .map(
      (b, i) =>
        `<span class="${kind}" style="${pct(b)}" data-testid="${kind}"${titles[i] ? ` title="${esc(titles[i])}"` : ""}></span>`,
    )
    .join("");
}

/** One side of a comparison: its URL, and an overlay drawn on it (HTML, positioned in percent). */
export interface CompareImage {
  url: string;
  overlays?: string;
}

/** What {@link compareFigures} shows. */
export interface CompareParts {
  /** The image before (a stored baseline, a heal's previous value). */
  expected?: CompareImage;
  /** The image after (a run's screenshot, a heal's new value). */
  actual?: CompareImage;
  diff?: CompareImage;
  /** Captions of the three, default "expected" / "actual" / "diff". */
  labels?: { expected: string; actual: string; diff: string };
  /** Whose images, for alt texts and the slider's accessible name. */
  subject: string;
}

/** An image that opens full size in a new tab (a phone screenshot is far larger than its card). */
export function fullSize(url: string, alt: string, overlays = ""): string {
  return `<a class="shot" href="${esc(url)}" target="_blank" rel="noopener" data-testid="full-size"><img src="${esc(url)}" alt="${esc(alt)}" loading="lazy">${overlays}</a>`;
}

/** A baseline's varying boxes (blue) and located prompt masks (orange), to draw over its image. */
export function baselineBoxes(r: Pick<BaselineRecord, "device" | "varying" | "promptMasks">): string {
  const screen = r.device.screen;
  const masks = (r.promptMasks ?? []).flatMap((m) => (m.box ? [{ prompt: m.prompt, box: m.box }] : []));
  return (
    boxOverlays(
      r.varying.map((b) => overlay(b, screen)),
      "varying",
    ) +
    boxOverlays(
      masks.map((m) => overlay(m.box, screen)),
      "prompt-mask",
      masks.map((m) => `masked: ${m.prompt}`),
    )
  );
}

/** The three figures side by side and, when both expected and actual are there, the slider. */
export function compareFigures(parts: CompareParts): string {
  const labels = parts.labels ?? { expected: "expected", actual: "actual", diff: "diff" };
  const figures = (["expected", "actual", "diff"] as const)
    .filter((side) => parts[side])
    .map((side) => {
      const { url, overlays } = parts[side]!;
      return `<figure class="screen" data-testid="${esc(labels[side])}" data-label="${esc(labels[side])}">${fullSize(url, `${parts.subject}: ${labels[side]}`, overlays)}<figcaption>${esc(labels[side])}</figcaption></figure>`;
    });
  if (parts.expected && parts.actual) figures.push(slider(parts as Required<CompareParts>, labels));
  return `<div class="figures">${figures.join("")}</div>`;
}

function slider(parts: Required<CompareParts>, labels: { expected: string; actual: string }): string {
  return `<figure class="screen compare" data-testid="compare">
  <span class="wipe"><img src="${esc(parts.expected.url)}" alt="${esc(`${parts.subject}: ${labels.expected}`)}"><img src="${esc(parts.actual.url)}" class="top" alt="${esc(`${parts.subject}: ${labels.actual}`)}" style="clip-path: inset(0 0 0 50%)"><span class="edge" style="left:50%"></span></span>
  <input type="range" min="0" max="100" value="50" data-testid="slider" aria-label="${esc(`${parts.subject}: slide from ${labels.expected} (left) to ${labels.actual} (right)`)}">
  <figcaption>slide: ${esc(labels.expected)} | ${esc(labels.actual)}</figcaption>
</figure>`;
}

export const COMPARE_STYLE = `
.prompt-mask { position: absolute; border: 1px dashed var(--heal); background: rgba(179, 92, 0, 0.15); }
.screen.compare { width: 240px; }
.compare .wipe { position: relative; display: block; line-height: 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.compare .wipe img { display: block; width: 100%; height: auto; }
.compare .wipe img.top { position: absolute; inset: 0; }
.compare .edge { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px; background: var(--mark); }
.compare input { width: 100%; margin: 6px 0 0; }
`;

/** Moves each slider's wipe: the actual image shows right of the edge. */
export const COMPARE_SCRIPT = `
for (const figure of document.querySelectorAll("[data-testid=compare]")) {
  const input = figure.querySelector("input");
  const wipe = () => {
    figure.querySelector("img.top").style.clipPath = "inset(0 0 0 " + input.value + "%)";
    figure.querySelector(".edge").style.left = input.value + "%";
  };
  input.addEventListener("input", wipe);
  wipe();
}
`;
