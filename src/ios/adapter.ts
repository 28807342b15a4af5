/** PLACEHOLDER (issue 6): the ios device adapter. */
import type { DeviceAdapter } from "../core/device.js";
import { DeviceError } from "../core/errors.js";

const notYet = (): never => {
  throw new DeviceError("The ios adapter is not implemented yet.");
};

export const iosAdapter: DeviceAdapter = {
  platform: "ios",
  assertDriver: notYet,
  describe: notYet,
  screenshot: notYet,
  tap: notYet,
};
