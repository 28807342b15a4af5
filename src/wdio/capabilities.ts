/**
 * The run's target from a session's returned capabilities (docs/runners.md "The device a farm
 * gives"). The device's own readings win (docs/devices.md): the adapter reads the OS version and,
 * on Android, the model from the device, so only a farm's name for an iOS-style device whose
 * capabilities carry no model of their own becomes the target's `model`.
 */
import { capability, text } from "../appium/index.js";
import type { Target } from "../core/device/description.js";

/**
 * Where farms name the device they allocated, in the session's returned capabilities:
 * BrowserStack `bstack:options.deviceName`, LambdaTest `lt:options.deviceName`, Sauce Labs
 * `appium:deviceName` beside `sauce:options` (docs/runners.md lists the sources).
 * AWS Device Farm names only a UDID (`$DEVICEFARM_DEVICE_NAME`), which is no model.
 */
const FARM_OPTIONS = ["bstack:options", "lt:options", "sauce:options"] as const;

/** A device name that is a selection pattern (Sauce Labs and LambdaTest allow regular expressions). */
const PATTERN = /[*?^$|()[\]\\]/;

function farmDeviceName(caps: Record<string, unknown>): string | undefined {
  for (const key of FARM_OPTIONS) {
    const options = caps[key];
    if (!options || typeof options !== "object") continue;
    const name = text((options as Record<string, unknown>).deviceName) ?? text(capability(caps, "deviceName"));
    if (name && !PATTERN.test(name)) return name;
  }
  return undefined;
}

/**
 * The target for a session from its returned capabilities: `{ model }` when a device farm names
 * the device and the device reports no model in its capabilities (UiAutomator2's
 * `deviceManufacturer` + `deviceModel`), else `{}` so the adapter's readings apply.
 */
export function targetFromCapabilities(capabilities: unknown): Target {
  if (!capabilities || typeof capabilities !== "object") return {};
  const caps = capabilities as Record<string, unknown>;
  if (text(capability(caps, "deviceModel"))) return {};
  const model = farmDeviceName(caps);
  return model ? { model } : {};
}
