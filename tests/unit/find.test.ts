/**
 * `find` through tapshot/android and tapshot/ios on the driver double: the page source's node
 * under the located point becomes the element the driver finds (by a unique id, else by its
 * precise XPath), the value is stored as a locator and replayed without a model, nothing is
 * tapped; with no node under the point the answer is a point element whose click taps it.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as android from "../../src/android/index.js";
import * as ios from "../../src/ios/index.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import type { Rect } from "../../src/core/ground/geometry.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script, xcuitestScript } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let storageDir: string;
let logs: LogEntry[];

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-find-"));
  logs = [];
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** The model double answers this box for every locate. */
function configure(box: Rect) {
  const channel = new ScriptedChannel({
    locate: () => ({ found: true, box, reason: "the field under the cart", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, resultsDir: false, log: (entry) => logs.push(entry) });
}

/** A UiAutomator2 page source (tags are class names, as uiautomator2-server's AccessibilityNodeInfoDumper writes them). */
function androidSource(promoId: string, other = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?><hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">
<android.widget.FrameLayout index="0" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" displayed="true">
 <android.widget.LinearLayout index="0" class="android.widget.LinearLayout" bounds="[0,300][1080,1400]" displayed="true">
  <android.widget.TextView index="0" class="android.widget.TextView" text="Your cart" bounds="[40,320][1040,400]" displayed="true"/>
  <android.widget.EditText index="1" class="android.widget.EditText" resource-id="${other}" text="Gift note" bounds="[100,800][980,950]" displayed="true"/>
  <android.widget.EditText index="2" class="android.widget.EditText" resource-id="${promoId}" text="Promo code" bounds="[100,1000][980,1150]" displayed="true"/>
 </android.widget.LinearLayout>
</android.widget.FrameLayout></hierarchy>`;
}

const PROMO_BOX = { x: 100, y: 1000, width: 880, height: 150 };
const PROMO_XPATH =
  "/hierarchy[1]/android.widget.FrameLayout[1]/android.widget.LinearLayout[1]/android.widget.EditText[2]";

async function storedKeys(): Promise<string[]> {
  const files = await fs.readdir(path.join(storageDir, "_ai_"), { recursive: true });
  return files.map((f) => f.split(path.sep).join("/")).filter((f) => f.endsWith(".json"));
}

test("UiAutomator2: the field under the point is found by its unique resource-id, stored as a locator, replayed without a model, never tapped", async () => {
  configure(PROMO_BOX);
  const driver = new AppiumDriverDouble({
    ...uiautomator2Script(),
    pageSource: androidSource("com.shop:id/promo", "com.shop:id/note"),
    elements: { "id=com.shop:id/promo": { x: 100, y: 1000, width: 880, height: 150 } },
  });

  const first = (await android.find(asBrowser(driver), 'the "Promo code" field')) as { elementId?: string };
  expect(first.elementId).toBe("element-id=com.shop:id/promo");
  const second = (await android.find(asBrowser(driver), 'the "Promo code" field')) as { elementId?: string };
  expect(second.elementId).toBe("element-id=com.shop:id/promo");

  // A field's text may be what was typed, never its label: with no hint to say it, the model decides.
  expect(logs.map((l) => [l.api, l.outcome, l.aiCalls])).toEqual([
    ["find", "learned", 1],
    ["find", "replayed", 0],
  ]);
  expect(driver.count("performActions")).toBe(0);
  const keys = await storedKeys();
  expect(keys).toEqual([
    expect.stringMatching(
      /^apps\/com\.example\.shop\/locators\/android\/google-pixel-7_14\/the-promo-code-field-[0-9a-f]{10}\.json$/,
    ),
  ]);
  const record = JSON.parse(await fs.readFile(path.join(storageDir, "_ai_", keys[0]!), "utf8"));
  expect(record).toMatchObject({
    kind: "locator",
    prompt: 'the "Promo code" field',
    verify: null,
    point: { x: 540, y: 1075 },
  });
  expect(record.review.state).toBe("pending");
});

test("UiAutomator2: an id another element shares falls back to the node's precise XPath", async () => {
  configure(PROMO_BOX);
  const shared = "com.shop:id/field";
  const rect = { x: 100, y: 1000, width: 880, height: 150 };
  const driver = new AppiumDriverDouble({
    ...uiautomator2Script(),
    pageSource: androidSource(shared, shared),
    // Were the id tried, the driver would find two elements; the XPath finds the one.
    elements: { [`id=${shared}`]: [rect, rect], [PROMO_XPATH]: rect },
  });

  const found = (await android.find(asBrowser(driver), 'the "Promo code" field')) as { elementId?: string };

  expect(found.elementId).toBe(`element-${PROMO_XPATH}`);
  expect(driver.calls).not.toContain(`$$ id=${shared}`);
});

test("UiAutomator2: an id the page source shows once but the driver finds twice (a hidden twin) is not used", async () => {
  configure(PROMO_BOX);
  const rect = { x: 100, y: 1000, width: 880, height: 150 };
  const driver = new AppiumDriverDouble({
    ...uiautomator2Script(),
    pageSource: androidSource("com.shop:id/promo", "com.shop:id/note"),
    elements: { "id=com.shop:id/promo": [rect, rect], [PROMO_XPATH]: rect },
  });

  const found = (await android.find(asBrowser(driver), 'the "Promo code" field')) as { elementId?: string };

  expect(found.elementId).toBe(`element-${PROMO_XPATH}`);
});

test("XCUITest: the text field under the point is found by its accessibility id", async () => {
  // 393x852 points at 3x: the field at (20, 300) 353x50 points is (60, 900) 1059x150 pixels.
  configure({ x: 60, y: 900, width: 1059, height: 150 });
  const source = `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" enabled="true" visible="true" x="0" y="0" width="393" height="852">
<XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" x="0" y="0" width="393" height="852">
 <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Your cart" label="Your cart" enabled="true" visible="true" x="20" y="100" width="353" height="40"/>
 <XCUIElementTypeTextField type="XCUIElementTypeTextField" name="promo-code" label="Promo code" enabled="true" visible="true" x="20" y="300" width="353" height="50"/>
</XCUIElementTypeWindow></XCUIElementTypeApplication></AppiumAUT>`;
  const driver = new AppiumDriverDouble({
    ...xcuitestScript(),
    pageSource: source,
    elements: { "~promo-code": { x: 20, y: 300, width: 353, height: 50 } },
  });

  const found = (await ios.find(asBrowser(driver), 'the "Promo code" field')) as { elementId?: string };

  expect(found.elementId).toBe("element-~promo-code");
  expect((await storedKeys())[0]).toMatch(/^apps\/com\.example\.shop\/locators\/ios\/iphone-15-pro_17\.5\//);
});

test("XCUITest: a name that only repeats the label is no id: the precise XPath is used", async () => {
  configure({ x: 60, y: 900, width: 1059, height: 150 });
  const source = `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" enabled="true" visible="true" x="0" y="0" width="393" height="852">
<XCUIElementTypeButton type="XCUIElementTypeButton" name="Apply" label="Apply" enabled="true" visible="true" x="20" y="300" width="353" height="50"/>
</XCUIElementTypeApplication></AppiumAUT>`;
  const xpath = "/AppiumAUT[1]/XCUIElementTypeApplication[1]/XCUIElementTypeButton[1]";
  const driver = new AppiumDriverDouble({
    ...xcuitestScript(),
    pageSource: source,
    elements: { [xpath]: { x: 20, y: 300, width: 353, height: 50 } },
  });

  const found = (await ios.find(asBrowser(driver), 'the "Apply" button')) as { elementId?: string };

  expect(found.elementId).toBe(`element-${xpath}`);
});

test("no node but a container under the point: a point element whose click taps the stored point", async () => {
  configure(PROMO_BOX);
  const canvas = `<?xml version="1.0" encoding="UTF-8"?><hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">
<android.widget.FrameLayout index="0" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" displayed="true">
 <android.view.SurfaceView index="0" class="android.view.SurfaceView" resource-id="com.game:id/surface" bounds="[0,118][1080,2337]" displayed="true"/>
</android.widget.FrameLayout></hierarchy>`;
  const driver = new AppiumDriverDouble({ ...uiautomator2Script(), pageSource: canvas, elements: {} });

  const found = await android.find(asBrowser(driver), "the play button");

  expect(found).toMatchObject({ pointOnly: true, point: { x: 540, y: 1075 } });
  expect(driver.count("performActions")).toBe(0);
  await (found as { click(): Promise<void> }).click();
  expect(driver.count("performActions")).toBe(1);
  const pointer = (driver.actions[0] as [{ actions: unknown[] }])[0].actions[0];
  expect(pointer).toMatchObject({ type: "pointerMove", x: 540, y: 1075 });
});
