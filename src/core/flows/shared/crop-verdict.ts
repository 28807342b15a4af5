/* When a stored crop matches a screenshot: one verdict for every flow that replays a crop. */
import type { CropVerdict } from "../../pixels/crop.js";

/**
 * How a stored crop is judged, in place and by every crop search (a tap's heal ladder, scroll
 * taps, an act step's control found by its crop): pixelmatch threshold 0.1 per pixel, and at most
 * 1% of the crop's pixels may differ (anti-aliasing, a blinking caret).
 */
export const CROP_VERDICT: CropVerdict = { threshold: 0.1, maxDiffRatio: 0.01 };
