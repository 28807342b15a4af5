import { browser, expect } from "@wdio/globals";

// The shop's varying content (balance, dates, clock) pinned, and the iPhone's system bars drawn.
const SHOP = "variant=default&seed=1&bars=47,34&platform=ios";

it("cart", async () => {
  await browser.url(`/cart?${SHOP}`);
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
