/**
 * The rig's wiring for a copied example, loaded into the example's own process by the tests and
 * never by the example: `node --import tsx --import <this file>` (the WebdriverIO script and the
 * wdio testrunner, through NODE_OPTIONS) or Jest's `setupFiles`. A rig session is Chromium under
 * Appium, which neither tapshot's Android nor its iOS adapter can read, so this sets the rig's
 * adapter as the default of `tapshot/wdio`, for the phone `$TAPSHOT_RIG_PROFILE` names
 * (rig/profiles.ts). The adapter reports that phone's model and OS version, as a phone reads its
 * own, so the examples replay the values stored under that device.
 */
import type { DeviceAdapter } from "tapshot/adapter";
import { setDefaultAdapter } from "tapshot/wdio";
import { PROFILES, type PhoneProfile } from "../../rig/profiles.js";
import { rigAdapter } from "../../rig/rig-adapter.js";

/** The rig adapter for `profile`, describing the session as that phone. */
export function phoneAdapter(profile: PhoneProfile): DeviceAdapter {
  const chromium = rigAdapter(profile);
  return {
    platform: profile.platform,
    open(driver) {
      const session = chromium.open(driver);
      return {
        ...session,
        async describe(note) {
          const read = await session.describe(note);
          return { ...read, model: profile.target.model, osVersion: profile.target.osVersion };
        },
      };
    },
  };
}

const id = process.env.TAPSHOT_RIG_PROFILE ?? "";
const profile = PROFILES[id];
if (!profile) {
  throw new Error(`TAPSHOT_RIG_PROFILE is "${id}"; use one of ${Object.keys(PROFILES).join(", ")} (rig/profiles.ts).`);
}
setDefaultAdapter(phoneAdapter(profile));
