/**
 * Where a stored tap is on the whole screen (docs/reviewing.md "Taps"): the screen's outline in its
 * own proportions, the stored crop placed where it was cut, the element's box, and the point as a
 * hollow ring with crosshair ticks outside it, so the marker never covers the element's label.
 * Only the crop is stored, so the rest of the screen is drawn empty.
 */
import type { TapRecord } from "../../core/store/tap-record.js";
import { esc } from "./escape.js";

type Placed = Pick<TapRecord, "point" | "box" | "crop" | "device">;

/**
 * An SVG of `record` on its screen; `cropUrl` is the stored crop's image, when there is one. A heal's
 * value `before` is drawn too, dashed grey, so the move shows.
 */
export function tapOnScreen(
  record: Placed,
  cropUrl: string | undefined,
  subject: string,
  before?: Pick<TapRecord, "point" | "box">,
): string {
  const { width: w, height: h } = record.device.screen;
  const { point: p, box, crop } = record;
  const r = Math.max(6, Math.round(w * 0.035));
  const tick = Math.round(r * 0.8);
  const line = (x1: number, y1: number, x2: number, y2: number) =>
    `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" class="ring" vector-effect="non-scaling-stroke"/>`;
  return `<figure class="screen tap-screen" data-testid="tap-screen">
<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(`${subject}: tapped at (${p.x}, ${p.y}) of a ${w}x${h} screen`)}">
  <rect x="0" y="0" width="${w}" height="${h}" class="frame"/>
  ${cropUrl ? `<image href="${esc(cropUrl)}" x="${crop.x}" y="${crop.y}" width="${crop.width}" height="${crop.height}" preserveAspectRatio="none"/>` : ""}
  ${
    before
      ? `<g class="before" data-testid="tap-before"><rect x="${before.box.x}" y="${before.box.y}" width="${before.box.width}" height="${before.box.height}" vector-effect="non-scaling-stroke"/><circle cx="${before.point.x}" cy="${before.point.y}" r="${r}" vector-effect="non-scaling-stroke"/></g>`
      : ""
  }
  <rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" class="box" vector-effect="non-scaling-stroke" data-testid="tap-box"/>
  <circle cx="${p.x}" cy="${p.y}" r="${r}" class="ring" vector-effect="non-scaling-stroke" data-testid="tap-ring"/>
  ${line(p.x - r - tick, p.y, p.x - r, p.y)}${line(p.x + r, p.y, p.x + r + tick, p.y)}${line(p.x, p.y - r - tick, p.x, p.y - r)}${line(p.x, p.y + r, p.x, p.y + r + tick)}
</svg>
<figcaption>on the screen · point (${p.x}, ${p.y})${before ? ` · before (${before.point.x}, ${before.point.y}), grey` : ""}</figcaption>
</figure>`;
}

export const TAP_SCREEN_STYLE = `
figure.tap-screen { width: min-content; }
.tap-screen svg { display: block; width: 120px; height: auto; border-radius: 6px; }
.tap-screen .frame { fill: #f0f2f5; stroke: var(--line); stroke-width: 2; }
.tap-screen .box { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 2; }
.shot .tap-box { position: absolute; border: 1.5px dashed var(--accent); }
.tap-screen .before { fill: none; stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 3 3; }
.tap-screen .ring { fill: none; stroke: var(--mark); stroke-width: 2; }
`;
