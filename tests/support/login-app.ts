/**
 * A login form for the Appium driver double (./appium-driver-double.ts), as UiAutomator2 and
 * XCUITest serve it: email and password fields, a remember-me switch, a country spinner (picker)
 * with its options, a Sign in button, a loading state and a confirmation. It is an app under
 * test, not a model: it answers taps, typing and keys on its controls and draws each control in
 * its own colours, so crops of different controls differ as on a real screen.
 *
 * Page source shapes: UiAutomator2 serves `text` (typed text; the hint for an empty EditText on
 * API 26+, AccessibilityNodeInfo.getText), `hint`, `password`, `checkable`, `checked`,
 * `clickable`, `focused` and `bounds` in pixels (appium-uiautomator2-server
 * AccessibilityNodeInfoDumper); XCUITest serves `value` (typed text, the placeholder when empty),
 * `placeholderValue`, `label`, `name` and frames in points (WebDriverAgent FBXPath), a switch's
 * `value` as "1"/"0".
 */
import sharp from "sharp";
import type { Point, Rect } from "../../src/core/ground/geometry.js";

/** What a screen shows. */
export type LoginScreen = "form" | "loading" | "done";

interface Widget {
  key: "email" | "password" | "remember" | "country" | "signIn" | "option" | "continue" | "progress";
  /** In the driver's units: pixels on Android, points on iOS. */
  rect: Rect;
  option?: string;
}

/** How the form is laid out and what changed in it (a redesign moves or removes Sign in). */
export interface LoginVariant {
  /** Sign in is this many units lower (a moved control). */
  signInShift?: number;
  /** Sign in is gone; a "Log in" button with another id stands in its place. */
  signInRenamed?: boolean;
  /** Sign in looks and reads the same but has this id (a rebuilt screen): found by its crop, not its identity. */
  signInId?: string;
  /** The app opens on a loading state that lasts this many screenshots, then shows the form. */
  startLoading?: number;
  /** Screenshots the loading state lasts. */
  loadingShots?: number;
  /** The email and password fields look alike while empty (one colour, one pattern): only their hints differ. */
  lookalikeFields?: boolean;
  /** The whole form is this many units lower (a moved form). */
  formShift?: number;
  /** The email and password fields alone are this many units lower, the password field over the switch's top. */
  fieldsShift?: number;
  /** The email and password fields have new ids (`field_1`, `field_2`: a rebuilt form). */
  rebuiltFields?: boolean;
}

export const COUNTRIES = ["Germany", "France", "Japan"];

export class LoginApp {
  screen: LoginScreen = "form";
  email = "";
  password = "";
  remember = true;
  country = "Germany";
  open = false;
  focused: "email" | "password" | undefined;
  /** Every key pressed, for tests. */
  readonly keys: string[] = [];
  /** What Sign in was pressed with: whether the email and password matched. */
  signedIn: { email: string; password: string; remember: boolean; country: string } | undefined;
  private loadingLeft = 0;

  constructor(
    readonly platform: "android" | "ios",
    public variant: LoginVariant = {},
  ) {
    if (variant.startLoading) [this.screen, this.loadingLeft] = ["loading", variant.startLoading];
  }

  /** Driver units per layout unit: the layout is in iOS points; Android pixels are 3x. */
  private get unit(): number {
    return this.platform === "android" ? 2.75 : 1;
  }

  private r(x: number, y: number, width: number, height: number): Rect {
    const u = this.unit;
    return { x: Math.round(x * u), y: Math.round(y * u), width: Math.round(width * u), height: Math.round(height * u) };
  }

  /** The widgets on screen now. */
  widgets(): Widget[] {
    if (this.screen === "loading") return [{ key: "progress", rect: this.r(176, 400, 40, 40) }];
    if (this.screen === "done") return [{ key: "continue", rect: this.r(40, 500, 313, 50) }];
    const shift = this.variant.signInShift ?? 0;
    const form = this.variant.formShift ?? 0;
    const fields = form + (this.variant.fieldsShift ?? 0);
    const list: Widget[] = [
      { key: "email", rect: this.r(20, 150 + fields, 353, 50) },
      { key: "password", rect: this.r(20, 220 + fields, 353, 50) },
      { key: "remember", rect: this.r(20, 290 + form, 353, 44) },
      { key: "country", rect: this.r(20, 350 + form, 353, 44) },
      { key: "signIn", rect: this.r(40, 560 + form + shift, 313, 50) },
    ];
    if (this.open) {
      COUNTRIES.forEach((option, i) => list.push({ key: "option", option, rect: this.r(40, 400 + i * 44, 313, 40) }));
    }
    return list;
  }

  /** A tap in driver units. */
  tap(at: Point): void {
    const hit = [...this.widgets()].reverse().find(({ rect }) => inside(rect, at));
    if (this.open && hit?.key !== "option") this.open = false;
    if (!hit) return;
    if (hit.key === "email" || hit.key === "password") this.focused = hit.key;
    else this.focused = undefined;
    if (hit.key === "remember") this.remember = !this.remember;
    if (hit.key === "country") this.open = true;
    if (hit.key === "option") [this.country, this.open] = [hit.option!, false];
    if (hit.key === "signIn") this.submit();
  }

  private submit(): void {
    this.signedIn = { email: this.email, password: this.password, remember: this.remember, country: this.country };
    this.screen = "loading";
    this.loadingLeft = this.variant.loadingShots ?? 3;
  }

  /**
   * The fields W3C Find Elements finds by id, as element ids: UiAutomator2's `id` strategy matches the
   * `resource-id` (`id=com.shop:id/email`), XCUITest's `accessibility id` the `name` (`~email`).
   */
  fieldsFound(selector: string): string[] {
    const id =
      this.platform === "android" ? selector.match(/^id=com\.shop:id\/(.+)$/)?.[1] : selector.match(/^~(.+)$/)?.[1];
    const field = (["email", "password"] as const).find((key) => this.fieldId(key) === id);
    return field ? [`field-${field}`] : [];
  }

  /** A field's id in the page source (`resource-id` after the package, XCUITest `name`). */
  fieldId(key: "email" | "password"): string {
    return this.variant.rebuiltFields ? (key === "email" ? "field_1" : "field_2") : key;
  }

  /** The focused field's element id, as `GET /element/active` answers; none when no field has focus. */
  activeElement(): string | undefined {
    return this.focused && `field-${this.focused}`;
  }

  clear(elementId: string): void {
    if (elementId === "field-email") this.email = "";
    if (elementId === "field-password") this.password = "";
  }

  sendKeys(elementId: string, text: string): void {
    if (text === "\n") {
      this.keys.push("enter");
      return;
    }
    if (elementId === "field-email") this.email += text;
    if (elementId === "field-password") this.password += text;
  }

  pressKey(key: string): void {
    this.keys.push(key);
  }

  /** Called for every screenshot: a loading state ends after its shots. */
  advance(): void {
    if (this.screen === "loading" && --this.loadingLeft < 0) this.screen = this.signedIn ? "done" : "form";
  }

  pageSource(): string {
    return this.platform === "android" ? this.androidSource() : this.iosSource();
  }

  private androidSource(): string {
    const b = ({ x, y, width, height }: Rect) => `bounds="[${x},${y}][${x + width},${y + height}]"`;
    const node = (attrs: string, rect: Rect) => `<node ${attrs} ${b(rect)} displayed="true" enabled="true"/>`;
    const id = (name: string) => `resource-id="com.shop:id/${name}"`;
    const parts = this.widgets().map(({ key, rect, option }) => {
      switch (key) {
        case "email":
          return node(
            `class="android.widget.EditText" ${id(this.fieldId("email"))} text="${esc(this.email || "Email")}" hint="Email" clickable="true" focused="${this.focused === "email"}"`,
            rect,
          );
        case "password":
          return node(
            `class="android.widget.EditText" ${id(this.fieldId("password"))} text="${this.password ? "•".repeat(this.password.length) : "Password"}" hint="Password" password="true" clickable="true" focused="${this.focused === "password"}"`,
            rect,
          );
        case "remember":
          return node(
            `class="android.widget.Switch" ${id("remember")} text="Remember me" checkable="true" checked="${this.remember}" clickable="true"`,
            rect,
          );
        case "country":
          return node(
            `class="android.widget.Spinner" ${id("country")} content-desc="Country, ${this.country}" clickable="true"`,
            rect,
          );
        case "option":
          return node(
            `class="android.widget.CheckedTextView" resource-id="android:id/text1" text="${option}" clickable="true"`,
            rect,
          );
        case "signIn":
          return this.variant.signInRenamed
            ? node(`class="android.widget.Button" ${id("log_in")} text="Log in" clickable="true"`, rect)
            : node(
                `class="android.widget.Button" ${id(this.variant.signInId ?? "sign_in")} text="Sign in" clickable="true"`,
                rect,
              );
        case "progress":
          return node(`class="android.widget.ProgressBar" ${id("progress")}`, rect);
        case "continue":
          return node(`class="android.widget.Button" ${id("continue")} text="Continue" clickable="true"`, rect);
      }
    });
    const title = this.screen === "done" ? "Welcome back" : "Sign in to Shop";
    return (
      `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">` +
      `<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" displayed="true" enabled="true">` +
      `<node class="android.widget.TextView" ${id("title")} text="${title}" ${b(this.r(20, 80, 353, 40))} displayed="true" enabled="true"/>` +
      parts.join("") +
      `</node></hierarchy>`
    );
  }

  private iosSource(): string {
    const f = ({ x, y, width, height }: Rect) => `x="${x}" y="${y}" width="${width}" height="${height}"`;
    const el = (type: string, attrs: string, rect: Rect) =>
      `<XCUIElementType${type} type="XCUIElementType${type}" ${attrs} ${f(rect)} enabled="true" visible="true"/>`;
    const parts = this.widgets().map(({ key, rect, option }) => {
      switch (key) {
        case "email":
          return el(
            "TextField",
            `name="${this.fieldId("email")}" value="${esc(this.email || "Email")}" placeholderValue="Email"`,
            rect,
          );
        case "password":
          return el(
            "SecureTextField",
            `name="${this.fieldId("password")}" value="${this.password ? "•".repeat(this.password.length) : "Password"}" placeholderValue="Password"`,
            rect,
          );
        case "remember":
          return el("Switch", `name="remember" label="Remember me" value="${this.remember ? 1 : 0}"`, rect);
        case "country":
          return el("PopUpButton", `name="country" label="Country" value="${this.country}"`, rect);
        case "option":
          return el("MenuItem", `name="${option}" label="${option}"`, rect);
        case "signIn":
          return this.variant.signInRenamed
            ? el("Button", `name="log_in" label="Log in"`, rect)
            : el("Button", `name="${this.variant.signInId ?? "sign_in"}" label="Sign in"`, rect);
        case "progress":
          return el("ActivityIndicator", `name="In progress" label="In progress"`, rect);
        case "continue":
          return el("Button", `name="continue" label="Continue"`, rect);
      }
    });
    const title = this.screen === "done" ? "Welcome back" : "Sign in to Shop";
    return (
      `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT>` +
      `<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" x="0" y="0" width="393" height="852" enabled="true" visible="true">` +
      el("StaticText", `name="title" label="${title}"`, this.r(20, 80, 353, 40)) +
      parts.join("") +
      `</XCUIElementTypeApplication></AppiumAUT>`
    );
  }

  /** The screen as a PNG (base64) of `size` pixels; `scale` pixels per driver unit. */
  async screenshot(size: { width: number; height: number }, scale: number): Promise<string> {
    const colours: Record<Widget["key"], string> = {
      email: "#2563eb",
      password: "#7c3aed",
      remember: this.remember ? "#16a34a" : "#9ca3af",
      country: "#ea580c",
      signIn: this.variant.signInRenamed ? "#0f766e" : "#dc2626",
      option: "#0891b2",
      continue: "#065f46",
      progress: "#111827",
    };
    const rects = this.widgets().map(({ key, rect, option }, i) => {
      const [x, y, w, h] = [rect.x, rect.y, rect.width, rect.height].map((v) => Math.round(v * scale)) as [
        number,
        number,
        number,
        number,
      ];
      // Stripes whose count depends on the widget (and its typed length), so every crop is its own.
      const typed = key === "email" ? this.email.length : key === "password" ? this.password.length : 0;
      const alike = this.variant.lookalikeFields && (key === "email" || key === "password");
      const stripes = Array.from({ length: 2 + (((alike ? 0 : i) + typed + (option?.length ?? 0)) % 5) }, (_, s) => {
        const sx = x + Math.round(((s + 1) * w) / 8);
        return `<rect x="${sx}" y="${y + Math.round(h / 4)}" width="${Math.max(2, Math.round(w / 24))}" height="${Math.round(h / 2)}" fill="#ffffff"/>`;
      }).join("");
      const fill = alike ? colours.email : colours[key];
      return `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${fill}"/>${stripes}`;
    });
    const title = this.screen === "done" ? "#065f46" : "#1f2937";
    const titleRect = this.r(20, 80, 200, 30);
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}">` +
      `<rect width="100%" height="100%" fill="#f8fafc"/>` +
      `<rect x="${Math.round(titleRect.x * scale)}" y="${Math.round(titleRect.y * scale)}" width="${Math.round(titleRect.width * scale)}" height="${Math.round(titleRect.height * scale)}" fill="${title}"/>` +
      rects.join("") +
      `</svg>`;
    const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
    return png.toString("base64");
  }
}

function inside(r: Rect, p: Point): boolean {
  return p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
