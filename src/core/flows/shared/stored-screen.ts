/*
 * Whether a settled screen without a tap's crop is final (docs/api.md "When a call fails"): only
 * the stored screen with the element changed or gone fails fast (or goes to the heal). A screen
 * that shares little with the stored one (a splash, a skeleton, "Loading…", a dialog's backdrop)
 * or whose page source shows a progress indicator is still loading, and is waited for.
 */
import type { DeviceDescription } from "../../device/description.js";
import { progressIndicator } from "../../device/element-queries.js";
import type { Rect } from "../../ground/geometry.js";
import type { CropVerdict } from "../../pixels/crop.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { searchMoved } from "../../pixels/moved-crop.js";
import { cellRect, compareThumbs, screenThumb, type ScreenThumb } from "../../pixels/screen-thumb.js";
import type { Call } from "../../run/call.js";
import type { Finality } from "../../run/stable-screen.js";
import type { StoredScreenThumb, TapRecord } from "../../store/tap-record.js";

/**
 * The share of the content cells (src/core/pixels/screen-thumb.ts) that must look alike for a
 * screen to be the stored one. On the demo shop's cart (tests/e2e/fail-fast.test.ts) a redesign
 * shares 84-85%, a removed or restyled button 100%; its loading view 39-43%, the next screen 35-38%.
 */
export const SAME_SCREEN_SHARE = 0.7;
/** The stored screen needs this many content cells besides the element's to be recognised at all. */
const MIN_CONTENT_CELLS = 8;

/** The screen's area a thumbnail covers: inside the system bars of the device it was taken on. */
function thumbArea(device: Pick<DeviceDescription, "screen" | "insets">): Rect {
  const { screen, insets } = device;
  return {
    x: insets.left,
    y: insets.top,
    width: screen.width - insets.left - insets.right,
    height: screen.height - insets.top - insets.bottom,
  };
}

/** The thumbnail to store with a tap learned or healed on `screen` (decoded), as the record keeps it. */
export function storedThumb(screen: RawImage, device: DeviceDescription): StoredScreenThumb {
  const thumb = screenThumb(screen, thumbArea(device));
  const base64 = (cells: Uint8Array) => Buffer.from(cells).toString("base64");
  return { cols: thumb.cols, rows: thumb.rows, grey: base64(thumb.grey), texture: base64(thumb.texture) };
}

function fromRecord(stored: StoredScreenThumb): ScreenThumb {
  const bytes = (cells: string) => new Uint8Array(Buffer.from(cells, "base64"));
  return { cols: stored.cols, rows: stored.rows, grey: bytes(stored.grey), texture: bytes(stored.texture) };
}

/** What {@link settledScreenIsFinal} needs: the record, its crop's pixels and verdict, and when the poll ends. */
export interface StoredScreen {
  /** A tap's record, or what an act's step keeps of the same (src/core/flows/act/replay.ts). */
  record: Pick<TapRecord, "screenThumb" | "device" | "crop">;
  expected: () => Promise<RawImage>;
  /** How the crop is judged (src/core/flows/tap/crop-check.ts). */
  verdict: CropVerdict;
  /** The poll's end: a page source read still unanswered then is not waited for. */
  until: number;
}

/**
 * Whether a settled screenshot without the stored crop is final: the stored screen (by its
 * thumbnail, or because the stored crop shows elsewhere on it) with no progress indicator in the
 * page source. A record without a thumbnail (stored by an older tapshot) is never final.
 */
export async function settledScreenIsFinal(call: Call, png: Buffer, stored: StoredScreen): Promise<Finality> {
  const { record } = stored;
  if (!record.screenThumb) {
    return {
      final: false,
      why: "the stored tap has no thumbnail of its screen to tell a change from a loading screen (stored by an older tapshot; learn it again to fail fast)",
    };
  }
  const screen = await decode(png);
  const recognised = await recogniseScreen(call, screen, stored, record.screenThumb);
  if (!recognised.same) return { final: false, why: recognised.why };
  const busy = await busyIndicator(call, stored.until);
  if (busy) return { final: false, why: `${busy}, and ${recognised.why}` };
  return { final: true, why: recognised.why };
}

/** Whether `screen` is the stored screen: its thumbnail agrees, or the stored crop shows elsewhere on it. */
async function recogniseScreen(
  call: Call,
  screen: RawImage,
  stored: StoredScreen,
  thumb: StoredScreenThumb,
): Promise<{ same: boolean; why: string }> {
  const was = fromRecord(thumb);
  const area = thumbArea(stored.record.device);
  const now = screenThumb(screen, area, was);
  const crop = stored.record.crop;
  const overCrop = (cell: number) => {
    const r = cellRect(area, was, cell % was.cols, Math.floor(cell / was.cols));
    return r.x < crop.x + crop.width && crop.x < r.x + r.width && r.y < crop.y + crop.height && crop.y < r.y + r.height;
  };
  const agreement = compareThumbs(was, now, overCrop);
  const share = agreement.content ? agreement.alike / agreement.content : 0;
  const shared = `it shares ${Math.round(share * 100)}% of its content with the stored screen`;
  if (agreement.storedContent >= MIN_CONTENT_CELLS && share >= SAME_SCREEN_SHARE) return { same: true, why: shared };
  // Content moved (a banner above, a longer list): the element itself on the screen shows it has loaded.
  const search = await searchMoved(screen, await stored.expected(), crop, call.device, stored.verdict);
  if (search.kind === "unique") return { same: true, why: `the stored crop shows elsewhere on it, and ${shared}` };
  if (search.kind === "ambiguous") {
    const places = search.rects.map((r) => `(${r.x}, ${r.y})`).join(", ");
    return {
      same: true,
      why: `the stored crop matched ${search.rects.length} places on it, at ${places}, and ${shared}`,
    };
  }
  const sparse =
    agreement.storedContent < MIN_CONTENT_CELLS
      ? " (the stored screen has too little besides the element to recognise it)"
      : "";
  return { same: false, why: `${shared}${sparse}, and the stored crop shows nowhere on it` };
}

/**
 * A progress indicator the page source shows, described; `undefined` when none (or the session
 * serves no page source). A read still unanswered at `until` counts as busy: the poll ends then anyway.
 */
async function busyIndicator(call: Call, until: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), until - Date.now())));
  try {
    const reading = await Promise.race([call.pageSource(), late]);
    if (reading === "late") return "the page source did not answer before the poll's end";
    const busy = progressIndicator(reading, call.device.platform);
    return busy && `the page source shows a progress indicator (${busy})`;
  } finally {
    clearTimeout(timer);
  }
}
