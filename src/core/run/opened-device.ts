/*
 * A device session with its description cached: described once per session, and again
 * when a screenshot's size shows the screen changed (a rotation).
 */
import type {
  AdapterNote,
  DescribedDevice,
  DeviceSession,
  DriverScroll,
  ElementTarget,
  FillInput,
  PressKey,
  ScrollAnswer,
} from "../device/description.js";
import { DeviceError } from "../ground/errors.js";
import type { Point, Rect } from "../ground/geometry.js";
import type { ElementAt, Swipe } from "../device/description.js";
import { imageSize } from "../pixels/image-decode.js";
import { pngStructureProblem } from "../pixels/png.js";
import { UndecodableImageError } from "../pixels/image-input.js";
import type { Size } from "../ground/geometry.js";

export class OpenedDevice {
  private description: DescribedDevice | undefined;
  /** A page source read that has not answered yet. */
  private pendingPageSource: Promise<string> | undefined;
  /** Every screenshot the device sent, to tell a bad screenshot from a bad stored or passed-in image. */
  private readonly sent = new WeakSet<Buffer>();

  /** The app under test, asked once per session. */
  private app: Promise<string | undefined> | undefined;

  constructor(private readonly session: DeviceSession) {}

  /**
   * The app under test as the session tells it, asked once per session; `undefined` when the
   * session cannot tell (no `appIdentity`, or it failed: noted once, and not asked again).
   */
  appIdentity(note: AdapterNote): Promise<string | undefined> {
    const session = this.session;
    if (typeof session.appIdentity !== "function") return Promise.resolve(undefined);
    this.app ??= session.appIdentity().catch((error: unknown) => {
      note(`the app under test could not be read (${(error as Error).message}); values are kept without an app`);
      return undefined;
    });
    return this.app;
  }

  /** The cached description, read from the device the first time. */
  async describe(note: AdapterNote): Promise<DescribedDevice> {
    this.description ??= await this.session.describe(note);
    return this.description;
  }

  /**
   * A screenshot, and the description it was taken with: described again first when the
   * screenshot's size differs from the cached one.
   */
  async screenshot(note: AdapterNote): Promise<{ png: Buffer; device: DescribedDevice }> {
    let png: Buffer;
    try {
      png = await this.session.screenshot();
    } catch (error) {
      if (error instanceof DeviceError) throw error;
      throw new DeviceError(`Taking a screenshot failed: ${(error as Error).message}`, { cause: error });
    }
    const problem = Buffer.isBuffer(png) ? pngStructureProblem(png) : "it is not a Buffer";
    if (problem) throw badScreenshot(problem);
    this.sent.add(png);
    let device = await this.describe(note);
    let size: Size;
    try {
      size = await imageSize(png);
    } catch (error) {
      throw new DeviceError(`The device sent a bad screenshot: ${(error as Error).message}`, { cause: error });
    }
    if (size.width !== device.screen.width || size.height !== device.screen.height) {
      device = this.description = await this.session.describe(note);
    }
    return { png, device };
  }

  /**
   * `error` as the call should report it: an image that could not be decoded (its zlib stream cut short
   * passes the structural check above and fails only while inflating) is a DeviceError when this device
   * sent it; anything else is returned as it is.
   */
  blame(error: unknown): unknown {
    if (error instanceof UndecodableImageError && this.sent.has(error.image)) {
      return badScreenshot(error.problem, error);
    }
    return error;
  }

  tap(point: Point): Promise<void> {
    return this.session.tap(point);
  }

  /** Swipe; a DeviceError saying so when the session has no `swipe` (docs/devices.md). */
  swipe(swipe: Swipe): Promise<void> {
    if (typeof this.session.swipe !== "function") {
      throw new DeviceError(
        "tap's scroll option and whole-page baselines (fullPage) need a device session that can swipe, and this " +
          "adapter's session has no swipe() method. Add swipe(swipe) to the adapter's DeviceSession (docs/devices.md), " +
          "or tap without scroll and compare single screens.",
      );
    }
    return this.session.swipe(swipe);
  }

  /** Type into the field at a point; a DeviceError saying so when the session cannot (docs/devices.md). */
  fill(input: FillInput): Promise<void> {
    if (typeof this.session.fill !== "function") throw missingForAct("fill(input)", "fill");
    return this.session.fill(input);
  }

  /** Clear the field at a point; a DeviceError saying so when the session cannot. */
  clear(input: { point: Point }): Promise<void> {
    if (typeof this.session.clear !== "function") throw missingForAct("clear(input)", "clear");
    return this.session.clear(input);
  }

  /** Press a key; a DeviceError saying so when the session cannot. */
  pressKey(key: PressKey): Promise<void> {
    if (typeof this.session.pressKey !== "function") throw missingForAct("pressKey(key)", "press");
    return this.session.pressKey(key);
  }

  /** Every element `target` matches; a DeviceError saying so when the session cannot find elements. */
  elementMatches(target: ElementTarget): Promise<Rect[]> {
    if (typeof this.session.elementMatches !== "function") {
      throw new DeviceError(
        "toSatisfy on an element or selector needs a device session that can find elements, and this adapter's " +
          "session has no elementMatches() method. Add elementMatches(target) to the adapter's DeviceSession " +
          "(docs/devices.md), or assert on the whole screen with expect(driver).toSatisfy(statement).",
      );
    }
    return this.session.elementMatches(target);
  }

  /** The session's element lookup at a point (`find`), or `undefined` when the session has none. */
  get elementAt(): ((at: ElementAt) => Promise<object | null>) | undefined {
    const session = this.session;
    return session.elementAt ? (at) => session.elementAt!(at) : undefined;
  }

  /** The driver's own scroll with its answer, or `undefined` when the session has none. */
  get scrollAndTell(): ((scroll: DriverScroll) => Promise<ScrollAnswer>) | undefined {
    const session = this.session;
    return session.scrollAndTell ? (scroll) => session.scrollAndTell!(scroll) : undefined;
  }

  /**
   * The session's page source reader, when it has one. WebDriver has no way to cancel a request:
   * a `/source` given up on keeps the Appium server busy until it answers, and the server runs
   * one command at a time. So while one read is unanswered, another read fails at once instead
   * of queueing a second `/source` behind it (docs/heal.md).
   */
  get pageSource(): (() => Promise<string>) | undefined {
    const session = this.session;
    if (!session.pageSource) return undefined;
    return () => {
      if (this.pendingPageSource) {
        return Promise.reject(new Error("an earlier page source request on this session has not answered yet"));
      }
      const reading = session.pageSource!();
      const pending = reading.finally(() => {
        if (this.pendingPageSource === pending) this.pendingPageSource = undefined;
      });
      pending.catch(() => undefined);
      this.pendingPageSource = pending;
      return reading;
    };
  }

  /** Where the targets' elements are now; a DeviceError saying so when the session cannot tell (docs/devices.md). */
  elementRects(targets: ElementTarget[]): Promise<(Rect | null)[]> {
    if (typeof this.session.elementRects !== "function") {
      throw new DeviceError(
        "toMatchScreenshot's selector and element masks need a device session that can find elements, and this " +
          "adapter's session has no elementRects() method. Add elementRects(targets) to the adapter's " +
          "DeviceSession (docs/devices.md), or pass masks as boxes in screenshot pixels.",
      );
    }
    return this.session.elementRects(targets);
  }
}

/** The DeviceError of an `ai.act` action the session has no method for. */
function missingForAct(method: string, action: string): DeviceError {
  return new DeviceError(
    `ai.act's "${action}" action needs a device session with a ${method} method, and this adapter's session has ` +
      `none. Add it to the adapter's DeviceSession (docs/devices.md), or reach the goal with taps.`,
  );
}

/** The DeviceError of a screenshot that is no whole PNG. */
function badScreenshot(problem: string, cause?: unknown): DeviceError {
  return new DeviceError(
    `The device sent a bad screenshot: ${problem}. Take the screenshot again, or check the driver and the device.`,
    cause === undefined ? undefined : { cause },
  );
}
