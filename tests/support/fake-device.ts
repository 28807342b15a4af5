/**
 * A device double for unit tests: a phone whose screens are scenes of coloured
 * elements, rendered to real PNGs with sharp. Taps hit elements and may change the
 * scene. The adapter double drives it exactly as a platform adapter drives Appium.
 */
import sharp from "sharp";
import type { DeviceAdapter, DeviceDescription, DeviceSession, Point } from "../../src/core/device/description.js";
import { DeviceError } from "../../src/core/ground/errors.js";

export interface FakeElement {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  fill: string;
  /** Optional inner mark so elements of one colour still differ. */
  mark?: string;
  /** The mark's size, centred (a label that keeps its size when the element stretches); default half by a third of the element. */
  markSize?: { width: number; height: number };
  /** What a tap on it does. */
  onTap?: (device: FakeDevice) => void;
  /**
   * Its attributes in the page source (`resource-id`, `text`, `content-desc`, `class` on Android;
   * `name`, `label`, `type` on iOS); elements without are served with their `id` as resource-id / name.
   */
  a11y?: Record<string, string>;
}

export interface FakeScene {
  background: string;
  elements: FakeElement[];
  /** Colour of the status bar (changes per "clock tick" in tests). */
  statusBar?: string;
  /** Colour of a navigation bar drawn over the bottom inset; none is drawn when unset. */
  navBar?: string;
}

/** A plain screen with a header and a green checkout button at (40, 520), nothing tappable. */
export function checkoutScene(): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: "#16a34a", mark: "#ffffff" },
    ],
  };
}

export interface FakeDeviceOptions {
  model?: string;
  osVersion?: string;
  platform?: "android" | "ios";
  width?: number;
  height?: number;
  scale?: number;
  insets?: DeviceDescription["insets"];
  /** The app under test the session declares (DeviceSession.appIdentity); none by default, as a session that cannot tell. */
  app?: string;
}

export class FakeDevice {
  readonly description: DeviceDescription;
  scene: FakeScene;
  /** Taps received, in screenshot pixels. */
  readonly taps: Point[] = [];
  screenshots = 0;
  /**
   * The page source the session serves: `"scene"` serialises the scene (see {@link scenePageSource}),
   * a function answers instead (one that throws, never answers, or answers too much); none by default.
   */
  pageSource: "scene" | (() => Promise<string>) | undefined;
  /** Page sources served. */
  pageSources = 0;
  /** Elements looked up for masks. */
  elementLookups = 0;
  /** The app under test the session tells, when it tells one. */
  readonly app: string | undefined;
  /** Times the session was asked for its app. */
  appAsks = 0;
  /** Scenes to show for the next screenshots before `scene` (a screen still loading). */
  loading: FakeScene[] = [];
  private cache = new Map<string, Buffer>();

  constructor(scene: FakeScene, options: FakeDeviceOptions = {}) {
    this.scene = scene;
    this.app = options.app;
    this.description = {
      platform: options.platform ?? "android",
      model: options.model ?? "Fake Phone 1",
      osVersion: options.osVersion ?? "14",
      screen: { width: options.width ?? 360, height: options.height ?? 640 },
      scale: options.scale ?? 1,
      insets: options.insets ?? { top: 24, bottom: 32, left: 0, right: 0 },
      orientation: (options.width ?? 360) > (options.height ?? 640) ? "landscape" : "portrait",
    };
  }

  element(id: string): FakeElement {
    const found = this.scene.elements.find((e) => e.id === id);
    if (!found) throw new Error(`no element ${id} on the fake screen`);
    return found;
  }

  async readPageSource(): Promise<string> {
    this.pageSources++;
    if (typeof this.pageSource === "function") return this.pageSource();
    return scenePageSource(this.scene, this.description);
  }

  async screenshot(): Promise<Buffer> {
    this.screenshots++;
    const scene = this.loading.shift() ?? this.scene;
    return render(scene, this.description, this.cache);
  }

  tap(point: Point): void {
    this.taps.push(point);
    const hit = [...this.scene.elements]
      .reverse()
      .find((e) => point.x >= e.x && point.x < e.x + e.width && point.y >= e.y && point.y < e.y + e.height);
    hit?.onTap?.(this);
  }
}

/**
 * A scene as the real driver's page source: UiAutomator2's `<hierarchy><node ... bounds="[x1,y1][x2,y2]">`
 * in pixels, or XCUITest's `<XCUIElementType* name label x y width height>` in points (pixels / scale).
 */
export function scenePageSource(scene: FakeScene, device: DeviceDescription): string {
  const esc = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const attrs = (a: Record<string, string>) =>
    Object.entries(a)
      .map(([k, v]) => `${k}="${esc(v)}"`)
      .join(" ");
  const { width, height } = device.screen;
  if (device.platform === "android") {
    const nodes = scene.elements.map((e) => {
      const a = e.a11y ?? { "resource-id": e.id, class: "android.view.View" };
      return `<node ${attrs(a)} bounds="[${e.x},${e.y}][${e.x + e.width},${e.y + e.height}]"/>`;
    });
    return (
      `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node class="android.widget.FrameLayout" ` +
      `bounds="[0,0][${width},${height}]">${nodes.join("")}</node></hierarchy>`
    );
  }
  const pt = (v: number) => Math.round((v / device.scale) * 100) / 100;
  const nodes = scene.elements.map((e) => {
    const a = e.a11y ?? { name: e.id, type: "XCUIElementTypeOther" };
    const type = a.type ?? "XCUIElementTypeOther";
    return `<${type} ${attrs(a)} x="${pt(e.x)}" y="${pt(e.y)}" width="${pt(e.width)}" height="${pt(e.height)}"/>`;
  });
  return (
    `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" ` +
    `x="0" y="0" width="${pt(width)}" height="${pt(height)}">${nodes.join("")}</XCUIElementTypeApplication></AppiumAUT>`
  );
}

export async function render(
  scene: FakeScene,
  device: DeviceDescription,
  cache = new Map<string, Buffer>(),
): Promise<Buffer> {
  const { width, height } = device.screen;
  const key = JSON.stringify([
    scene.background,
    scene.statusBar,
    scene.elements.map(({ onTap: _, ...e }) => e),
    scene.navBar,
  ]);
  const cached = cache.get(key);
  if (cached) return cached;
  const parts = scene.elements.map(
    (e) =>
      `<rect x="${e.x}" y="${e.y}" width="${e.width}" height="${e.height}" rx="6" fill="${e.fill}"/>` +
      (e.mark ? markRect(e) : ""),
  );
  const bar = `<rect x="0" y="0" width="${width}" height="${device.insets.top}" fill="${scene.statusBar ?? "#222"}"/>`;
  const { bottom } = device.insets;
  const navBar = scene.navBar
    ? `<rect x="0" y="${height - bottom}" width="${width}" height="${bottom}" fill="${scene.navBar}"/>`
    : "";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="${scene.background}"/>${bar}${parts.join("")}${navBar}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  cache.set(key, png);
  return png;
}

function markRect(e: FakeElement): string {
  const { width, height } = e.markSize ?? { width: e.width / 2, height: e.height / 3 };
  const x = e.x + (e.width - width) / 2;
  const y = e.y + (e.height - height) / 2;
  return `<rect x="${x}" y="${y}" width="${width}" height="${height}" fill="${e.mark}"/>`;
}

/** A driver double: what the adapter double needs, plus the session id a real session has. */
export interface FakeDriver {
  sessionId: string;
  device: FakeDevice;
}

let sessions = 0;
export function fakeDriver(device: FakeDevice): FakeDriver {
  return { sessionId: `fake-session-${++sessions}`, device };
}

/** A platform adapter over {@link FakeDevice}; counts its describes. */
export function fakeAdapter(platform: "android" | "ios" = "android"): DeviceAdapter & { describes: number } {
  const adapter = {
    platform,
    describes: 0,
    open(driver: unknown): DeviceSession {
      if (!(driver as FakeDriver)?.sessionId || !(driver as FakeDriver).device) {
        throw new DeviceError("driver is not a fake session");
      }
      const { device } = driver as FakeDriver;
      return {
        async describe() {
          adapter.describes++;
          return structuredClone(device.description);
        },
        screenshot: () => device.screenshot(),
        async tap(point: Point) {
          device.tap(point);
        },
        ...(device.pageSource ? { pageSource: () => device.readPageSource() } : {}),
        ...(device.app
          ? {
              async appIdentity() {
                device.appAsks++;
                return device.app;
              },
            }
          : {}),
        // Selectors are `~<element id>` (an accessibility id); a held element is `{ elementId }`.
        async elementRects(targets) {
          device.elementLookups += targets.length;
          return targets.map((t) => {
            const id = "selector" in t ? t.selector.replace(/^~/, "") : (t.element as { elementId?: string }).elementId;
            const found = device.scene.elements.find((e) => e.id === id);
            return found ? { x: found.x, y: found.y, width: found.width, height: found.height } : null;
          });
        },
      };
    },
  };
  return adapter;
}
