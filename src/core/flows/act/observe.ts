/*
 * One look at the screen for `ai.act`: a settled screenshot and the controls of its page source
 * (src/core/device/controls.ts), with a signature that tells whether the screen changed.
 */
import { createHash } from "node:crypto";
import { observeControls, type Observation, type ObserveContext } from "../../device/controls.js";
import { DeviceError } from "../../ground/errors.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { encodePng } from "../../pixels/image-encode.js";
import { fillRects } from "../../pixels/masks.js";
import { MASK_GREY_BYTE } from "../../pixels/pixel-diff.js";
import type { Call } from "../../run/call.js";
import { settledScreenshot } from "../shared/settled-screenshot.js";

/** What one look saw. */
export interface Seen {
  png: Buffer;
  raw: RawImage;
  observation: Observation;
  /** The controls with their states: equal signatures are an unchanged screen. */
  signature: string;
}

/** A settled screenshot and the controls on it. */
export async function observeScreen(call: Call, context: ObserveContext): Promise<Seen> {
  const { png, raw } = await settledScreenshot(call);
  const observation = await observeNow(call, context);
  return { png, raw, observation, signature: signatureOf(observation) };
}

/** The controls of the page source now; a DeviceError when the session serves no readable page source. */
export async function observeNow(call: Call, context: ObserveContext): Promise<Observation> {
  const reading = await call.pageNodes();
  if ("skipped" in reading) {
    throw new DeviceError(
      `ai.act reads the screen's controls from the accessibility tree, and ${reading.skipped}. ` +
        `Use an Appium session in the native context, or reach the goal with tap.`,
    );
  }
  return observeControls(reading.elements, context);
}

/**
 * `png` with every observed field that holds text painted grey: what a model is shown and what a
 * failure keeps, so a value the test typed (an email shown in clear, not only a password's dots) never
 * leaves the device as pixels.
 */
export async function withFilledFieldsPainted(
  shot: { png: Buffer; raw?: RawImage },
  observation: Observation,
): Promise<Buffer> {
  const filled = observation.controls
    .filter(({ control }) => control.role === "field" && control.holds !== undefined && control.holds !== "(empty)")
    .map((c) => c.bounds);
  if (!filled.length) return shot.png;
  // A copy: the look's own pixels stay as the screen showed them (crops and thumbnails are cut from them).
  const raw = shot.raw ? { ...shot.raw, data: Buffer.from(shot.raw.data) } : await decode(shot.png);
  fillRects(raw, filled, MASK_GREY_BYTE);
  return encodePng(raw);
}

function signatureOf(observation: Observation): string {
  const controls = observation.controls.map(({ control: { id: _id, ...rest } }) => rest);
  return createHash("sha256").update(JSON.stringify(controls)).digest("hex");
}
