/*
 * `ai.controls(driver)`: the screen's visible, labelled controls as `ai.act` sees them, read from the
 * page source with no screenshot, no model and no log entry. A read-only look for tools that show
 * a screen to someone (an agent, a debugging session) rather than a step of a flow.
 */
import { observeControls, type ObservedControl } from "../device/controls.js";
import { parsePageNodes } from "../device/page-source-parse.js";
import { readPageSource } from "../device/page-source.js";
import { limitedSignal, untilAborted } from "../ground/deadline.js";
import { DeviceError, TimeoutError } from "../ground/errors.js";
import type { OpenedDevice } from "../run/opened-device.js";
import { checkControlsInput, type ScreenControl } from "./options.js";

/** The controls of the screen `driver` shows now. */
export async function controlsCall(
  open: (driver: unknown) => OpenedDevice,
  driver: unknown,
  options: unknown,
): Promise<ScreenControl[]> {
  const { timeout, signal, values } = checkControlsInput(options);
  const deadline = limitedSignal(
    signal,
    timeout,
    () => new TimeoutError(`controls did not finish within ${timeout} ms.`),
  );
  const opened = open(driver);
  let reading;
  let device;
  try {
    device = await untilAborted(
      opened.describe(() => undefined),
      deadline.signal,
    );
    reading = await readPageSource(opened.pageSource, device, { signal: deadline.signal, parse: parsePageNodes });
  } finally {
    deadline.dispose();
  }
  if (deadline.signal.aborted) throw deadline.signal.reason;
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
