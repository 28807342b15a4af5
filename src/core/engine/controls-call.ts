/*
 * `ai.controls(driver)`: the screen's visible, labelled controls as `ai.act` sees them, read from the
 * page source with no screenshot, no model and no log entry. A read-only look for tools that show
 * a screen to someone (an agent, a debugging session) rather than a step of a flow.
 */
import { observeControls, type ObservedControl } from "../device/controls.js";
import { parsePageNodes } from "../device/page-source-parse.js";
import { readPageSource } from "../device/page-source.js";
import { DeviceError } from "../ground/errors.js";
import type { OpenedDevice } from "../run/opened-device.js";
import { checkControlsInput, type ScreenControl } from "./options.js";

/** The controls of the screen `driver` shows now. */
export async function controlsCall(
  open: (driver: unknown) => OpenedDevice,
  driver: unknown,
  options: unknown,
): Promise<ScreenControl[]> {
  const { timeout, signal, values } = checkControlsInput(options);
  const deadline = AbortSignal.any([AbortSignal.timeout(timeout), ...(signal ? [signal] : [])]);
  const opened = open(driver);
  const device = await opened.describe(() => undefined);
  const reading = await readPageSource(opened.pageSource, device, { signal: deadline, parse: parsePageNodes });
  if ("skipped" in reading) {
    throw new DeviceError(`controls are read from the accessibility tree, and ${reading.skipped}.`);
  }
  const { controls } = observeControls(reading.elements, { platform: device.platform, values, filled: new Map() });
  return controls.map(screenControl);
}

function screenControl({ control, identity, bounds }: ObservedControl): ScreenControl {
  return {
    kind: control.role,
    text: control.label,
    ...("id" in identity && identity.id ? { id: identity.id } : {}),
    bounds,
    ...(control.checked !== undefined ? { checked: control.checked } : {}),
    ...(control.selected ? { selected: true } : {}),
    ...(control.focused ? { focused: true } : {}),
  };
}
