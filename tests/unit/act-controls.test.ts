/**
 * `ai.act`'s observation (src/core/device/controls.ts) on UiAutomator2, Espresso and XCUITest page
 * sources: roles, states, labels that never hold typed text, `holds`, identities, limits, busy.
 */
import { observeControls, type ObserveContext } from "../../src/core/device/controls.js";
import { parsePageNodes } from "../../src/core/device/page-source-parse.js";
import { MAX_CONTROLS } from "../../src/core/model/contract.js";
import { LoginApp } from "../support/login-app.js";

const ANDROID = { platform: "android" as const, scale: 1, screen: { width: 1080, height: 2400 } };
const IOS = { platform: "ios" as const, scale: 3, screen: { width: 1179, height: 2556 } };
const TYPED = "typed-4b1e@example.test";

function context(platform: "android" | "ios", values: Record<string, string> = {}): ObserveContext {
  return { platform, values, filled: new Map() };
}

async function observe(app: LoginApp, values: Record<string, string> = {}) {
  const device = app.platform === "android" ? ANDROID : IOS;
  return observeControls(await parsePageNodes(app.pageSource(), device), context(app.platform, values));
}

describe.each(["android", "ios"] as const)("the login form's controls on %s", (platform) => {
  test("roles, labels, states and ids c1..cN in document order", async () => {
    const { controls, busy } = await observe(new LoginApp(platform));
    expect(controls.map((c) => c.control)).toEqual([
      { id: "c1", role: "field", label: "Email", holds: "(empty)" },
      { id: "c2", role: "field", label: "Password", holds: "(empty)" },
      { id: "c3", role: "switch", label: "Remember me", checked: true },
      { id: "c4", role: "select", label: platform === "android" ? "Country, Germany" : "Country" },
      { id: "c5", role: "button", label: "Sign in" },
    ]);
    expect(busy).toBeUndefined();
  });

  test("typed text is never a label; holds names the value it equals, or (other text)", async () => {
    const app = new LoginApp(platform);
    app.email = TYPED;
    const named = await observe(app, { email: TYPED });
    expect(named.controls[0]!.control).toMatchObject({ label: "Email", holds: "email" });
    const other = await observe(app, { email: "someone-else@example.test" });
    expect(other.controls[0]!.control).toMatchObject({ label: "Email", holds: "(other text)" });
    expect(JSON.stringify(other.controls.map((c) => c.control))).not.toContain(TYPED);
  });

  test("an open spinner's options are controls, and a loading screen is busy", async () => {
    const app = new LoginApp(platform);
    app.open = true;
    const options = (await observe(app)).controls.filter((c) => c.control.role === "option");
    expect(options.map((c) => c.control.label)).toEqual(["Germany", "France", "Japan"]);
    app.screen = "loading";
    expect((await observe(app)).busy).toMatch(/ProgressBar|ActivityIndicator/);
  });
});

describe("identities", () => {
  const row = (i: number, id: string, text: string) =>
    `<node class="android.widget.Button" resource-id="${id}" text="${text}" clickable="true" enabled="true" displayed="true" bounds="[0,${i * 100}][500,${i * 100 + 90}]"/>`;
  const source = (rows: string) => `<hierarchy>${rows}</hierarchy>`;

  test("a unique id; a shared id goes by label, class and ordinal; a control with neither id nor label is left out", async () => {
    const xml = source(
      row(1, "com.shop:id/buy", "Buy") +
        row(2, "com.shop:id/buy", "Buy") +
        row(3, "com.shop:id/checkout", "Checkout") +
        row(4, "com.shop:id/x", "") +
        row(5, "com.shop:id/x", "") +
        row(6, "", ""),
    );
    const { controls } = observeControls(await parsePageNodes(xml, ANDROID), context("android"));
    expect(controls.map((c) => c.identity)).toEqual([
      { label: "Buy", cls: "android.widget.Button", ordinal: 0 },
      { label: "Buy", cls: "android.widget.Button", ordinal: 1 },
      { id: "com.shop:id/checkout" },
      // "x" is its short id, which labels it: both share id and label, so they go by ordinal.
      { label: "x", cls: "android.widget.Button", ordinal: 0 },
      { label: "x", cls: "android.widget.Button", ordinal: 1 },
    ]);
  });

  test("disabled controls are left out", async () => {
    const xml = source(row(1, "com.shop:id/buy", "Buy").replace('enabled="true"', 'enabled="false"'));
    expect(observeControls(await parsePageNodes(xml, ANDROID), context("android")).controls).toEqual([]);
  });

  test(`over ${MAX_CONTROLS} controls fails clearly`, async () => {
    const rows = Array.from({ length: MAX_CONTROLS + 1 }, (_, i) => row(0, `com.shop:id/b${i}`, `B${i}`)).join("");
    const nodes = await parsePageNodes(source(rows).replace(/bounds="[^"]*"/g, 'bounds="[0,0][10,10]"'), ANDROID);
    expect(() => observeControls(nodes, context("android"))).toThrow(
      new RegExp(`observed ${MAX_CONTROLS + 1} controls on this screen, over the ${MAX_CONTROLS}`),
    );
  });

  test("over 32000 characters of labels fails clearly", async () => {
    const long = "L".repeat(900);
    const rows = Array.from({ length: 40 }, (_, i) => row(0, `com.shop:id/b${i}`, `${long}${i}`)).join("");
    const nodes = await parsePageNodes(source(rows).replace(/bounds="[^"]*"/g, 'bounds="[0,0][10,10]"'), ANDROID);
    expect(() => observeControls(nodes, context("android"))).toThrow(/characters of control labels.*over the 32000/);
  });
});

test("a supplied value shown as text elsewhere is named in labels and identities, never sent", async () => {
  const xml =
    `<hierarchy><node class="android.widget.Button" resource-id="com.shop:id/a" text="Continue as ${TYPED}" clickable="true" enabled="true" displayed="true" bounds="[0,0][500,90]"/>` +
    `<node class="android.widget.Button" resource-id="com.shop:id/a" text="Continue as ${TYPED}" clickable="true" enabled="true" displayed="true" bounds="[0,100][500,190]"/></hierarchy>`;
  const { controls } = observeControls(await parsePageNodes(xml, ANDROID), context("android", { email: TYPED }));
  expect(controls.map((c) => [c.control.label, c.identity.label])).toEqual([
    ["Continue as [value email]", "Continue as [value email]"],
    ["Continue as [value email]", "Continue as [value email]"],
  ]);
});
