/** Failures the wdio run must report: a changed screen (with images in Allure) and, on CI, nothing stored. */
import { browser, expect } from "@wdio/globals";

it("regression cart", async () => {
  // The regression variant has no Checkout button: the stored "cart" baseline no longer matches.
  await browser.url(`${process.env.SHOP_URL}/cart?variant=regression&seed=1&bars=47,34&platform=ios`);
  await expect(browser).toMatchAiScreenshot("cart", 'the cart with 2 items, a "Total" and a "Checkout" button', {
    // A settled mismatch ends as soon as it is judged final; the rest of the budget is for the failure images,
    // which a loaded CI machine (screenshots seconds apart while other suites run) must still have time for.
    timeout: 40_000,
  });
});

it("never stored", async () => {
  await browser.url(`${process.env.SHOP_URL}/cart?variant=default&seed=1&bars=47,34&platform=ios`);
  await expect(browser).toMatchAiScreenshot("never-stored", "the cart");
});
