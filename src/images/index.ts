/**
 * `tapshot/images`: the image operations tapshot's comparisons use, for tools and benchmarks
 * that want the same verdicts: decoding PNGs, comparing PNGs (bytes first) or decoded screens with
 * masks (pixelmatch's metric, src/core/pixels/pixel-diff.ts), the system-bar masks of a device, and the
 * crop search of the heal ladder (docs/heal.md).
 */
export { compare, comparePng, type CompareOptions, type CompareResult } from "../core/pixels/image-compare.js";
export { decode, decodeRegion, imageSize, type RawImage } from "../core/pixels/image-decode.js";
export { systemBarMasks } from "../core/pixels/masks.js";
export { searchCrop, type CropCandidate, type CropSearchOptions } from "../core/pixels/crop-search.js";
export { searchMoved, type CropVerdict, type SearchFinding, type Shift } from "../core/pixels/moved-crop.js";
export type { Point, Rect, Size } from "../core/ground/geometry.js";
export type { DeviceDescription, Insets } from "../core/device/description.js";
