/*
 * `tapshot/plugin`: the Appium 3 server plugin (docs/plugin.md). Appium loads this module as the
 * package's `main` and constructs {@link TapshotPlugin} (package.json's `appium.mainClass`).
 *
 * ```sh
 * appium plugin install --source=npm tapshot
 * appium server --use-plugins=tapshot --plugin-tapshot-provider=gemini
 * ```
 */
import { registerDefaultChannel } from "../core/config/config.js";
import { envDefaultChannel } from "../providers/env.js";

registerDefaultChannel(envDefaultChannel());

export { TapshotPlugin, TAP_SCRIPT, MATCH_SCREENSHOT_SCRIPT } from "./plugin.js";
export { CODE_LINE, TapshotW3CError } from "./w3c-error.js";
export { MODE_CAP, TARGET_CAP, type PluginArgs } from "./settings.js";
export type { AppiumDriver } from "./driver-session.js";
