import { browser, expect } from "@wdio/globals";

// A web app starts each test from its start page; a native app starts from its capabilities.
beforeEach(async () => {
  if (process.env.START_URL) await browser.url(process.env.START_URL);
});

it("cart", async () => {
  // No name given: the baseline is named after the test, "cart".
  await expect(browser).toMatchAiScreenshot('the cart with 2 items, a "Total" and a "Checkout" button');
});

it("checkout", async () => {
  await browser.aiTap('the "Checkout" button', { verify: 'the "Order summary" is shown' });
  await expect(browser).toMatchAiScreenshot(
    "order-summary",
    'the "Order summary" with the items and a "Place order" button',
  );
});
