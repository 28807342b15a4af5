/*
 * A first learn from the page source (docs/api.md "Learned from the page source"): a prompt of the
 * form `the "Checkout" button` whose element the page source names exactly (one visible, enabled
 * control of that kind saying that text, nothing drawn over it) is learned with no model request.
 * The record says `model: "page-source"` and is stored, cropped and reviewed like any learned value.
 */
import { findQuotedTarget, locateControls, quotedTarget } from "../../device/quoted-target.js";
import type { LocateControl } from "../../model/contract.js";
import { describeAttributes } from "../../device/a11y-element.js";
import { cropPng } from "../../pixels/image-encode.js";
import { toRect } from "../../pixels/pixel-rects.js";
import type { Call } from "../../run/call.js";
import { CROP_PAD_UNITS } from "./crop-check.js";
import { actOn, type Located } from "./locate.js";
import type { TapParams } from "./tap-params.js";

/** The model a value learned from the page source names. */
export const PAGE_SOURCE_MODEL = "page-source";

/**
 * What the page source gave a first learn: the element it names, acted on; or, when it does not
 * decide (noted), the screen's controls for the model's request when the prompt names a kind.
 */
export interface PageSourceFinding {
  located?: Located;
  controls?: LocateControl[];
}

/**
 * The element the page source names for `params.prompt`, acted on (tapped and verified, for a
 * tap), or, when the page source does not decide, what the model's request may carry of it.
 */
export async function locateInPageSource(
  call: Call,
  screenshot: Buffer,
  params: Pick<TapParams, "prompt" | "verify" | "kind">,
): Promise<PageSourceFinding> {
  const target = quotedTarget(params.prompt);
  if (!target) return {};
  const reading = await call.pageNodes();
  if ("skipped" in reading) {
    if (!reading.absent) call.note(`page source not used: ${reading.skipped}`);
    return {};
  }
  const finding = findQuotedTarget(reading.elements, target, call.device.platform);
  if ("undecided" in finding) {
    call.note(`page source did not decide: ${finding.undecided}`);
    return { controls: locateControls(reading.elements, call.device.platform) };
  }
  const { attributes, bounds } = finding.node;
  const point = { x: Math.round(bounds.x + bounds.width / 2), y: Math.round(bounds.y + bounds.height / 2) };
  const { width, height } = call.device.screen;
  const crop = toRect(bounds, width, height, CROP_PAD_UNITS * call.device.scale);
  const image = await cropPng(screenshot, crop);
  const reason = `the page source's only ${target.kind} saying "${target.text}" (${describeAttributes(attributes)})`;
  await actOn(call, point, params);
  call.log.answeredLocally(PAGE_SOURCE_MODEL);
  const located: Located = {
    found: true,
    box: { ...bounds },
    point,
    crop,
    image,
    model: PAGE_SOURCE_MODEL,
    reason,
    element: { attributes, bounds },
  };
  return { located };
}
