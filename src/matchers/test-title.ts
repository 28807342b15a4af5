/**
 * Default baseline names from the running test's title: the runner tells us the title (the WDIO
 * service from its `beforeTest` hook, Jest through the matcher context), and each unnamed call in
 * one test gets the next name: `cart-shows-two-items`, then `cart-shows-two-items-2`.
 */
import { createHash } from "node:crypto";
import { InputError } from "../core/ground/errors.js";
import { slugify, suggestBaselineName } from "../core/store/keys.js";

let runningTest: string | undefined;
const unnamedCalls = new Map<string, number>();

/** Record the test that is running now (`undefined` after it), restarting its count of unnamed calls. */
export function setRunningTest(fullTitle: string | undefined): void {
  runningTest = fullTitle;
  unnamedCalls.clear();
}

/** The title the runner reported, if any. */
export function runningTestTitle(): string | undefined {
  return runningTest;
}

/** The baseline name for the next unnamed call in the test titled `title`. */
export function defaultBaselineName(title: string | undefined): string {
  if (!title?.trim()) {
    throw new InputError(
      "toMatchAiScreenshot was called without a baseline name outside a test, so no name can come from the " +
        'test title. Pass one: toMatchAiScreenshot("cart-page", "the cart with 2 items").',
    );
  }
  const count = (unnamedCalls.get(title) ?? 0) + 1;
  unnamedCalls.set(title, count);
  const name = nameOfTitle(title);
  return count === 1 ? name : `${name}-${count}`;
}

/**
 * The name for `title`: its slug when the slug keeps every letter and digit of it; else (a title
 * shortened to fit, or with letters outside a-z, like "Café" or a Japanese title) the slug and a
 * hash of the whole title, so two such titles never share a baseline.
 */
function nameOfTitle(title: string): string {
  const whole = slugify(title, Number.POSITIVE_INFINITY);
  const slug = slugify(title);
  const onlyAsciiLetters = !/[\p{L}\p{N}]/u.test(title.replace(/[A-Za-z0-9]/g, ""));
  if (onlyAsciiLetters && slug === whole) return suggestBaselineName(title);
  const hash = createHash("sha256").update(title.normalize("NFC")).digest("hex").slice(0, 8);
  // slugify gives "x" when no letter or digit is left.
  return `${whole === "x" && !/[xX]/.test(title) ? "screen" : slug}-${hash}`;
}
