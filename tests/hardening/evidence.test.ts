/**
 * Promises about the device's evidence (docs/guarantees.md): what the device sends (a page source,
 * a screenshot) is checked before anything is tapped or compared on it. A page source with absurd
 * numbers, a PNG whose pixels only libvips decodes right, a screenshot that is not one: never a tap,
 * never a verdict from it.
 */
import { findElement, readPageSource, type PageSourceDevice } from "../../src/core/device/page-source.js";

const PIXEL_8: PageSourceDevice = { platform: "android", scale: 2.625, screen: { width: 1080, height: 2400 } };
const IPHONE_15: PageSourceDevice = { platform: "ios", scale: 3, screen: { width: 1179, height: 2556 } };
const HUGE = "9".repeat(400);

describe("page source bounds", () => {
  test.each([
    ["a right edge past a double's range (Infinity)", `[40,2000][${HUGE},2156]`],
    ["both edges past a double's range (NaN width)", `[-${HUGE},2000][${HUGE},2156]`],
  ])("UiAutomator2 bounds with %s drop the element, never give a tap point", async (_, bounds) => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">' +
      `<node class="android.widget.Button" resource-id="com.shop:id/checkout" text="Checkout" displayed="true" bounds="${bounds}"/>` +
      `<node class="android.widget.TextView" resource-id="com.shop:id/total" text="Total" displayed="true" bounds="[40,400][1040,500]"/>` +
      "</hierarchy>";
    const reading = await readPageSource(async () => xml, PIXEL_8);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    expect(reading.elements.map((e) => e.attributes["resource-id"])).toEqual(["com.shop:id/total"]);
    expect(findElement(reading.elements, { attributes: { "resource-id": "com.shop:id/checkout" } }, "android")).toEqual(
      { kind: "none" },
    );
  });

  test("XCUITest sizes that overflow once scaled to pixels drop the element", async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" ' +
      'name="Shop" x="0" y="0" width="393" height="852" visible="true">' +
      '<XCUIElementTypeButton type="XCUIElementTypeButton" name="checkout" label="Checkout" visible="true" ' +
      'x="-1e308" y="700" width="1.5e308" height="52"/>' +
      "</XCUIElementTypeApplication></AppiumAUT>";
    const reading = await readPageSource(async () => xml, IPHONE_15);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    expect(reading.elements.map((e) => e.attributes.name)).toEqual(["Shop"]);
    for (const { bounds } of reading.elements) expect(Object.values(bounds).every(Number.isFinite)).toBe(true);
  });
});
