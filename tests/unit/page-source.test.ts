/**
 * Reading the page source for the accessibility rung (src/core/device/page-source.ts), parsing it
 * (src/core/device/page-source-parse.ts) and asking it (src/core/device/element-queries.ts) on page
 * sources shaped like the real drivers': UiAutomator2's `<node>` tree with `bounds` in pixels and
 * `displayed`, XCUITest's `XCUIElementType*` tree with x/y/width/height in points and `visible`.
 */
import { elementAt, findElement } from "../../src/core/device/element-queries.js";
import { parsePageSource, type PageSourceDevice } from "../../src/core/device/page-source-parse.js";
import { readPageSource } from "../../src/core/device/page-source.js";

const PIXEL_8: PageSourceDevice = { platform: "android", scale: 2.625, screen: { width: 1080, height: 2400 } };
const IPHONE_15: PageSourceDevice = { platform: "ios", scale: 3, screen: { width: 1179, height: 2556 } };

/** A UiAutomator2 page source: `<hierarchy>` then `<node>` elements with the attributes it always writes. */
function uiautomator2(...nodes: string[]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes" ?><hierarchy index="0" class="hierarchy" rotation="0" ' +
    'width="1080" height="2400"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" ' +
    'package="com.shop" content-desc="" displayed="true" bounds="[0,0][1080,2400]">' +
    nodes.join("") +
    "</node></hierarchy>"
  );
}

function node(attrs: Record<string, string>, children = ""): string {
  const all = {
    index: "0",
    text: "",
    "resource-id": "",
    class: "android.view.View",
    "content-desc": "",
    displayed: "true",
    ...attrs,
  };
  const written = Object.entries(all)
    .map(([k, v]) => `${k}="${v}"`)
    .join(" ");
  return children ? `<node ${written}>${children}</node>` : `<node ${written} />`;
}

const CHECKOUT = { "resource-id": "com.shop:id/checkout", text: "Checkout", class: "android.widget.Button" };

test("a driver that never answers the page source is given up on after the time cap", async () => {
  const reading = await readPageSource(() => new Promise<string>(() => undefined), PIXEL_8, {
    limits: { maxChars: 100, timeoutMs: 20 },
  });
  expect(reading).toEqual({ skipped: "reading the page source failed: no answer within 20 ms" });
});

test("a page source over the size cap is not parsed", async () => {
  const xml = uiautomator2(node({ ...CHECKOUT, bounds: "[40,2000][1040,2156]" }));
  const reading = await readPageSource(async () => xml, PIXEL_8, { limits: { maxChars: 100, timeoutMs: 1_000 } });
  expect(reading).toEqual({ skipped: `the page source has ${xml.length} characters, over the 100 parsed` });
});

test("a web context's HTML is skipped, not parsed as an accessibility tree", async () => {
  const html = "<!DOCTYPE html><html><body><button id='checkout'>Checkout</button></body></html>";
  const reading = await readPageSource(async () => html, PIXEL_8);
  expect(reading).toEqual({
    skipped: "the page source is a web page's HTML (a web context), not the accessibility tree",
  });
});

test("XCUITest bounds are points, converted with the scale; the innermost element with a name or label wins", async () => {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" ' +
    'name="Shop" x="0" y="0" width="393" height="852" visible="true"><XCUIElementTypeOther type="XCUIElementTypeOther" ' +
    'x="0" y="600" width="393" height="100" visible="true"><XCUIElementTypeButton type="XCUIElementTypeButton" ' +
    'name="checkout" label="Checkout" x="20" y="620" width="353" height="52" visible="true"/></XCUIElementTypeOther>' +
    "</XCUIElementTypeApplication></AppiumAUT>";
  const elements = await parsePageSource(xml, IPHONE_15);
  expect(elementAt(elements, { x: 600, y: 1900 }, "ios", IPHONE_15.screen)).toEqual({
    attributes: { name: "checkout", label: "Checkout", type: "XCUIElementTypeButton" },
    bounds: { x: 60, y: 1860, width: 1059, height: 156 },
  });
});

test("hidden elements are dropped by their own flag: displayed=false on Android, visible=false on iOS", async () => {
  const android = await parsePageSource(
    uiautomator2(
      node({ ...CHECKOUT, displayed: "false", bounds: "[40,2000][1040,2156]" }),
      node({ "resource-id": "com.shop:id/list", bounds: "[0,200][1080,1800]" }),
    ),
    PIXEL_8,
  );
  expect(android.map((e) => e.attributes["resource-id"])).toEqual([undefined, "com.shop:id/list"]);

  const ios = await parsePageSource(
    '<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="393" height="852" ' +
      'visible="true"><XCUIElementTypeOther type="XCUIElementTypeOther" name="sheet" x="0" y="400" width="393" ' +
      'height="452" visible="false"><XCUIElementTypeButton type="XCUIElementTypeButton" name="checkout" x="20" ' +
      'y="620" width="353" height="52" visible="true"/></XCUIElementTypeOther></XCUIElementTypeApplication></AppiumAUT>',
    IPHONE_15,
  );
  // The hidden sheet is dropped; its button says it is visible, and the driver's flag is per element.
  expect(ios.map((e) => e.attributes.name)).toEqual([undefined, "checkout"]);
});

test("bounds are clipped to the screen; an element mostly scrolled away is dropped", async () => {
  const elements = await parsePageSource(
    uiautomator2(
      node({ ...CHECKOUT, bounds: "[40,2300][1040,2456]" }), // 100 of 156 rows on screen
      node({ "resource-id": "com.shop:id/total", text: "Total", bounds: "[40,2350][1040,2506]" }), // 50 of 156
    ),
    PIXEL_8,
  );
  expect(elements.map((e) => [e.attributes["resource-id"], e.bounds])).toEqual([
    [undefined, { x: 0, y: 0, width: 1080, height: 2400 }],
    ["com.shop:id/checkout", { x: 40, y: 2300, width: 1000, height: 100 }],
  ]);
  expect(
    findElement(elements, { attributes: { "resource-id": "com.shop:id/total", text: "Total" } }, "android"),
  ).toEqual({
    kind: "none",
  });
});

test("a container covering half the screen or more is never the element at the point", async () => {
  const elements = await parsePageSource(
    uiautomator2(
      node(
        { "resource-id": "com.shop:id/content", bounds: "[0,0][1080,1300]" },
        node({ text: "Free shipping", class: "android.widget.TextView", bounds: "[0,100][1080,200]" }),
      ),
    ),
    PIXEL_8,
  );
  // 1080x1300 is 54% of the 1080x2400 screen: an empty spot inside it has no element.
  expect(elementAt(elements, { x: 540, y: 900 }, "android", PIXEL_8.screen)).toBeUndefined();
  expect(elementAt(elements, { x: 540, y: 150 }, "android", PIXEL_8.screen)?.attributes.text).toBe("Free shipping");
});

test("an element with an id wins over its smaller label without one, up to four times the label's area", async () => {
  const label = node({ text: "Checkout", class: "android.widget.TextView", bounds: "[440,2030][640,2126]" });
  const button = (bounds: string) =>
    node({ "resource-id": "com.shop:id/checkout", class: "android.widget.Button", bounds }, label);
  const at = { x: 540, y: 2078 };
  // The button (1000x156) is 8x the label (200x96): too big to be what the label means.
  const wide = await parsePageSource(uiautomator2(button("[40,2000][1040,2156]")), PIXEL_8);
  expect(elementAt(wide, at, "android", PIXEL_8.screen)?.attributes).toEqual({
    text: "Checkout",
    class: "android.widget.TextView",
  });
  // A 400x156 button is 3.25x the label: the button and its id are stored.
  const tight = await parsePageSource(uiautomator2(button("[340,2000][740,2156]")), PIXEL_8);
  expect(elementAt(tight, at, "android", PIXEL_8.screen)?.attributes).toEqual({
    "resource-id": "com.shop:id/checkout",
    class: "android.widget.Button",
  });
});

test("entities are decoded and attribute values compared as the driver wrote them", async () => {
  const elements = await parsePageSource(
    uiautomator2(
      node({ text: "Terms &amp; conditions", class: "android.widget.TextView", bounds: "[40,100][1040,200]" }),
    ),
    PIXEL_8,
  );
  expect(findElement(elements, { attributes: { text: "Terms & conditions" } }, "android")).toMatchObject({
    kind: "unique",
    matched: ["text"],
  });
});
