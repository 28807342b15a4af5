/*
 * A WebdriverIO selector string (what `toMatchScreenshot`'s selector masks and `toSatisfy`'s
 * selector take in the SDK, docs/api.md) as the W3C locator `{ using, value }` a driver's
 * find-element command takes: the plugin has no WebdriverIO client to do this, so it reads the
 * selector forms WebdriverIO sends to the server unchanged. Forms WebdriverIO expands on the
 * client (aria/, shadow >>>, `tag=text`, image files, [role=...]) are refused with the direct form
 * to use instead.
 */
import { InputError } from "../core/ground/errors.js";

/** A W3C locator: the strategy and its value, as `POST /element` takes them. */
export interface Locator {
  using: string;
  value: string;
}

/** The strategies a selector may name directly as `<strategy>:<value>` (W3C's and Appium's drivers'). */
const DIRECT =
  /^(id|css selector|xpath|link text|partial link text|name|tag name|class name|accessibility id|-android uiautomator|-android datamatcher|-android viewmatcher|-android viewtag|-ios predicate string|-ios class chain):([\s\S]+)$/;

/** Native class names (`XCUIElementTypeButton`, `android.widget.Button`), which WebdriverIO sends as `class name`. */
const NATIVE_CLASS = /^(xcuielementtype|android\.widget|android\.view)/i;

/** `tag=text`, `.class*=text`: WebdriverIO turns these into XPath on the client. */
const TEXT_SHORTHAND = /^[a-z0-9|-]*(?:[.#]-?[_a-zA-Z][_a-zA-Z0-9-]*)?(?:\[[^\]]*\])?\.?\*?=/;

/** Prefixed forms WebdriverIO sends unchanged, each with its strategy. */
const PREFIXES: [string, string][] = [
  ["~", "accessibility id"],
  ["id=", "id"],
  ["android=", "-android uiautomator"],
  ["*=", "partial link text"],
  ["=", "link text"],
];

/** The W3C locator of a WebdriverIO selector string; an InputError for a form only WebdriverIO's client expands. */
export function locatorOf(selector: string): Locator {
  const direct = DIRECT.exec(selector);
  if (direct) return { using: direct[1]!, value: direct[2]! };
  if (/\.(jpe?g|gif|png|bmp|svg)$/i.test(selector)) throw clientOnly(selector); // an image to find on screen
  if (/^(\/|\(|\.\.?\/|\*\/)/.test(selector) || selector === "." || selector === "..") {
    return { using: "xpath", value: selector };
  }
  for (const [prefix, using] of PREFIXES) {
    if (selector.startsWith(prefix)) return { using, value: selector.slice(prefix.length) };
  }
  if (NATIVE_CLASS.test(selector)) return { using: "class name", value: selector };
  const tag = /^<([0-9a-zA-Z-]+)(?: \/)?>$/.exec(selector);
  if (tag) return { using: "tag name", value: tag[1]! };
  const name = /^\[name=(?:"([^"]*)"|'([^']*)')\]$/.exec(selector);
  if (name) return { using: "name", value: name[1] ?? name[2]! };
  if (/^(aria\/|>>>)/.test(selector) || /^\[role=[A-Za-z]+\]$/.test(selector)) {
    throw clientOnly(selector);
  }
  if (TEXT_SHORTHAND.test(selector)) throw clientOnly(selector);
  return { using: "css selector", value: selector };
}

function clientOnly(selector: string): InputError {
  return new InputError(
    `The selector ${JSON.stringify(selector)} is a form WebdriverIO expands on the client, which the tapshot plugin ` +
      'cannot: name the strategy directly, e.g. "xpath://*[@text=\'Total\']", "accessibility id:price", ' +
      '"-android uiautomator:new UiSelector().text(\\"Total\\")", "-ios predicate string:label == \'Total\'", or use ' +
      '"~price", "id=com.shop:id/total" or a CSS selector.',
  );
}
