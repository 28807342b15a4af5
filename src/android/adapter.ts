/** PLACEHOLDER (issue 6): the android device adapter. */
import type { DeviceAdapter } from "../core/device.js";
import { DeviceError } from "../core/errors.js";

const notYet = (): never => {
  throw new DeviceError("The android adapter is not implemented yet.");
};

export const androidAdapter: DeviceAdapter = {
  platform: "android",
  assertDriver: notYet,
  describe: notYet,
  screenshot: notYet,
  tap: notYet,
};
