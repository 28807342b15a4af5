/** What a tap is asked to do and what it answers, shared by the tap flow's modules. */
import type { Point } from "../../ground/geometry.js";
import type { RawImage } from "../../pixels/image-decode.js";
import type { Mismatch } from "../../run/lifecycle.js";
import type { SettleRule } from "../../run/settle.js";
import type { ScrollParams } from "./scroll/options.js";

/** Parameters of one tap, already validated. */
export interface TapParams {
  /**
   * `tap` taps the element; `locator` (`find`, src/core/flows/find/find.ts) only locates it and
   * stores its point under `locators/`: the same record, crop, heal and transfer, nothing tapped.
   */
  kind?: "tap" | "locator";
  prompt: string;
  verify: string | undefined;
  autoHeal: boolean;
  /** Scroll to find the element (docs/api.md "Scrolling to find"); `undefined` for a plain tap. */
  scroll?: ScrollParams | undefined;
  /** Rungs of the heal ladder that may be skipped (docs/heal.md); all on by default. */
  heal: { nearby: boolean; search: boolean; accessibility: boolean };
  /** Try the tap's records on other devices before the model when nothing is stored here (docs/transfer.md). */
  transfer: boolean;
  /** When a screen without the stored crop counts as final. */
  settle: SettleRule;
}

/** What a tap returns besides its outcome and model calls. */
export interface TapDone {
  point: Point;
}

/** A replay that did not match: the last screenshot and crop compared. */
export interface CropMismatch extends Mismatch {
  screenshot: Buffer;
  actual: RawImage | undefined;
}
