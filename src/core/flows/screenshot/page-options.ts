/* toMatchScreenshot's `fullPage` option (docs/api.md "Whole-page baselines"): what the caller may pass, and its checks. */
import { InputError } from "../../ground/errors.js";

/** `fullPage` as an object; `fullPage: true` is `{}`. */
export interface FullPageOptions {
  /** The most screens to look at (the first and one after each swipe), 2 to 30. Default 10. */
  maxScreens?: number;
  /** The tallest stitched page, in screenshot pixels, at least one screen. Default 20000. */
  maxHeight?: number;
}

/** The `fullPage` option, checked, with defaults. */
export interface FullPageParams {
  maxScreens: number;
  maxHeight: number;
}

export const DEFAULT_MAX_SCREENS = 10;
export const DEFAULT_MAX_PAGE_HEIGHT = 20_000;
const MOST_SCREENS = 30;
const KNOWN = ["maxScreens", "maxHeight"];

/** Check `fullPage`; `undefined` for a single-screen baseline. */
export function checkFullPage(value: unknown): FullPageParams | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { maxScreens: DEFAULT_MAX_SCREENS, maxHeight: DEFAULT_MAX_PAGE_HEIGHT };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(
      `fullPage must be true or an object, e.g. { fullPage: true } or { fullPage: { maxScreens: 5 } }; ` +
        `got ${JSON.stringify(value)}.`,
    );
  }
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !KNOWN.includes(k));
  if (unknown.length) {
    throw new InputError(
      `fullPage got unknown option ${unknown.map((k) => `"${k}"`).join(", ")}; known: ${KNOWN.join(", ")}.`,
    );
  }
  const { maxScreens = DEFAULT_MAX_SCREENS, maxHeight = DEFAULT_MAX_PAGE_HEIGHT } = given;
  const whole = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
  if (!whole(maxScreens) || maxScreens < 2 || maxScreens > MOST_SCREENS) {
    throw new InputError(
      `fullPage.maxScreens must be a whole number from 2 to ${MOST_SCREENS}, e.g. 10; got ${String(maxScreens)}.`,
    );
  }
  if (!whole(maxHeight) || maxHeight < 1) {
    throw new InputError(`fullPage.maxHeight must be a whole number of pixels, e.g. 20000; got ${String(maxHeight)}.`);
  }
  return { maxScreens, maxHeight };
}
