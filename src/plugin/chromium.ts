/*
 * A device adapter for Appium Chromium sessions (mobile web in Chromium's device emulation, the
 * repository's rig): screenshots in device pixels, taps as W3C touch actions in CSS pixels, the
 * scale read from the screenshot against the page's viewport width (docs/devices.md).
 */
import type { DeviceAdapter, DeviceDescription, DeviceSession, Platform } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import type { Point, Rect } from "../core/ground/geometry.js";
import {
  domPageSource,
  elementMatches,
  elementRects,
  orientationOf,
  performSwipe,
  performTap,
  positive,
  reason,
  screenshotSize,
  takePng,
  text,
  tidyScale,
  toTapUnits,
  webElementAt,
  type AppiumSession,
  type RectUnits,
} from "../appium/index.js";

/** The page's viewport as W3C `execute/sync` answers it. */
const VIEWPORT_SCRIPT =
  "return { width: window.innerWidth, height: window.innerHeight, ratio: window.devicePixelRatio, " +
  "agent: navigator.userAgent };";

interface Viewport {
  width: number;
  height: number;
  ratio: number;
  agent: string;
}

/** How far the page is scrolled: a W3C element rect is measured from the document's corner. */
const SCROLL_SCRIPT = "return { x: window.scrollX, y: window.scrollY };";

async function rectUnits(session: AppiumSession, scale: number): Promise<RectUnits> {
  const value = ((await session.execute(SCROLL_SCRIPT, [])) ?? {}) as Record<string, unknown>;
  const x = Number(value.x);
  const y = Number(value.y);
  return { scale, pageScroll: { x: Number.isFinite(x) ? x : 0, y: Number.isFinite(y) ? y : 0 } };
}

async function readViewport(session: AppiumSession): Promise<Viewport> {
  let value: unknown;
  try {
    value = await session.execute(VIEWPORT_SCRIPT, []);
  } catch (error) {
    throw new DeviceError(`The Chromium session did not report its viewport: ${reason(error)}`, { cause: error });
  }
  const v = (value ?? {}) as Record<string, unknown>;
  const width = positive(v.width);
  const height = positive(v.height);
  if (!width || !height) {
    throw new DeviceError(`The Chromium session reported a viewport without a size: ${JSON.stringify(value)}.`);
  }
  return { width, height, ratio: positive(v.ratio) ?? 1, agent: text(v.agent) ?? "" };
}

/**
 * The adapter for Chromium sessions, describing them as `platform` (a browser session has no
 * phone platform of its own; the `tapshot:target` capability names it). The model is
 * `Chromium <w>x<h>@<ratio>` and the OS version Chromium's version, unless the target names them.
 */
export function chromiumAdapter(platform: Platform): DeviceAdapter {
  return {
    platform,
    open(driver): DeviceSession {
      const session = driver as AppiumSession;
      let bounds: Rect | undefined;
      let scale = 1;
      return {
        async describe(note) {
          const png = await takePng(session);
          const shot = await screenshotSize(png);
          const viewport = await readViewport(session);
          scale = tidyScale(shot.width / viewport.width);
          if (Math.abs(scale - viewport.ratio) > 0.01) {
            note(
              `screenshot width ${shot.width} / viewport width ${viewport.width} = ${scale}, but the page reports ` +
                `devicePixelRatio ${viewport.ratio}; using ${scale}`,
            );
          }
          bounds = { x: 0, y: 0, width: viewport.width, height: viewport.height };
          const version = /(?:Chrome|Chromium|HeadlessChrome)\/([\d.]+)/.exec(viewport.agent)?.[1] ?? "unknown";
          const device: DeviceDescription = {
            platform,
            model: `Chromium ${viewport.width}x${viewport.height}@${viewport.ratio}`,
            osVersion: version,
            screen: shot,
            scale,
            insets: { top: 0, bottom: 0, left: 0, right: 0 },
            orientation: orientationOf(shot),
          };
          return device;
        },
        screenshot: () => takePng(session),
        // The app of a browser session is the site it shows: the page's host at the first call (the port is
        // left out: a test server listens on a new free port each run).
        async appIdentity() {
          const host = await session.execute("return location.hostname;", []);
          return typeof host === "string" && host ? host : undefined;
        },
        // The DOM in the platform's page-source shape: the page-source rung of a first learn, act's observation
        // and the heal ladder's accessibility rung read a web page as a native one.
        pageSource() {
          if (!bounds) throw new DeviceError("pageSource before describe: the engine describes a session first.");
          return domPageSource(session, { platform, scale });
        },
        // Selector masks and toSatisfy's selector: chromedriver's find-element and rect commands.
        async elementRects(targets) {
          if (!bounds) throw new DeviceError("elementRects before describe: the engine describes a session first.");
          return elementRects(session, targets, await rectUnits(session, scale));
        },
        async elementMatches(target) {
          if (!bounds) throw new DeviceError("elementMatches before describe: the engine describes a session first.");
          return elementMatches(session, target, await rectUnits(session, scale));
        },
        // find's element: the one at the point in the page (an element reference, as the plugin answers it).
        async elementAt({ point }) {
          if (!bounds) throw new DeviceError("elementAt before describe: the engine describes a session first.");
          return webElementAt(session, toTapUnits(point, scale, bounds), async (reference) => reference);
        },
        async tap(point: Point) {
          if (!bounds) throw new DeviceError("tap before describe: the engine describes a session before it taps.");
          await performTap(session, toTapUnits(point, scale, bounds));
        },
        async swipe({ from, to, durationMs }) {
          if (!bounds) throw new DeviceError("swipe before describe: the engine describes a session before it swipes.");
          const within = bounds;
          await performSwipe(session, toTapUnits(from, scale, within), toTapUnits(to, scale, within), durationMs);
        },
      };
    },
  };
}
