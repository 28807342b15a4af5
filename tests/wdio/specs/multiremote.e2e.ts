/** Multiremote: each instance is its own device, with its own stored values (only the iPhone 15 has any). */
import { multiremotebrowser as browser, expect } from "@wdio/globals";

const CART = 'the cart with 2 items, a "Total" and a "Checkout" button';

it("checks and taps each instance as its own device", async () => {
  await browser.getInstance("iphone15").url("/cart?variant=default&seed=1&bars=47,34&platform=ios");
  await browser.getInstance("iphoneSE").url("/cart?variant=default&seed=1&bars=20,0&platform=ios");

  const failure = await expect(browser)
    .toMatchAiScreenshot("cart", CART)
    .then(
      () => undefined,
      (error: Error) => error.message,
    );
  // The iPhone 15 matched its committed baseline; the SE has none, and CI means replay.
  expect(failure).toContain("iphoneSE: NotStoredError (not-stored)");
  expect(failure).toContain("iphone-se-3rd-generation_17.5");
  expect(failure).not.toContain("iphone15:");

  const tap = await browser.getInstance("iphone15").aiTap('the "Checkout" button', {
    verify: 'the "Order summary" is shown',
  });
  expect(tap.outcome).toBe("replayed");
});
