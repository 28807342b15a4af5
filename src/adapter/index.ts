/**
 * `tapshot/adapter`: the device seam, for runners that drive another kind of device
 * (docs/design.md section 2, docs/devices.md "Writing an adapter"). An adapter opens one
 * {@link DeviceSession} per driver; {@link createPlatformApi} turns it into `tap` and `expect`.
 *
 * ```ts
 * import { createPlatformApi, type DeviceAdapter } from "tapshot/adapter";
 * const ai = createPlatformApi(myAdapter);
 * await ai.tap(driver, "the checkout button");
 * ```
 *
 * The helpers below are what the Android and iOS adapters share: reading capabilities,
 * trying sources in order with notes, PNG screenshots, and W3C touch taps in tap units.
 */
import { registerDefaultChannel } from "../core/config/config.js";
import { envDefaultChannel } from "../providers/env.js";

registerDefaultChannel(envDefaultChannel());

export { createPlatformApi } from "../core/engine/engine.js";
export type { PlatformApi, ScreenshotMatchers, SatisfyMatchers, Matchers } from "../core/engine/engine.js";
export type {
  AdapterNote,
  DescribedDevice,
  DeviceAdapter,
  DeviceDescription,
  DeviceSession,
  DriverScroll,
  ElementAt,
  ElementTarget,
  FillInput,
  IdentityHints,
  Insets,
  Platform,
  PressKey,
  ScrollAnswer,
  Swipe,
  Target,
} from "../core/device/description.js";
export type { Point, Rect, Size } from "../core/ground/geometry.js";
export type {
  ActOptions,
  ActResult,
  ActStepSummary,
  ActAttempt,
  ControlsOptions,
  ScreenControl,
  TapOptions,
  TapResult,
  FindOptions,
  FindResult,
  PointElement,
  HealRungs,
  ScreenshotOptions,
  MaskEntry,
  ScreenshotResult,
  SatisfyOptions,
  SatisfyResult,
  ScrollOptions,
  SettleOptions,
  FullPageOptions,
  ScrollDirection,
} from "../core/engine/options.js";
export {
  appiumAdapter,
  assertAppiumSession,
  capability,
  elementDriver,
  elementMatches,
  elementRects,
  nativeElementAt,
  webElementAt,
  orientationOf,
  performSwipe,
  performTap,
  takePng,
  swipeActions,
  tapActions,
  textCapability,
  tidyInsets,
  tidyScale,
  toTapUnits,
  typeIntoFocused,
  typeIntoElement,
  fieldBySelectors,
  domPageSource,
  type DomSourceOptions,
  clearFocused,
  keysToFocused,
  type AppiumSession,
  type Found,
  type Reading,
  type SessionRequirement,
  type Source,
} from "../appium/index.js";
export { imageSize } from "../core/pixels/image-decode.js";
export * from "../errors.js";
