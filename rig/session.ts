/**
 * The rig in one object: a real Appium server, the demo shop, and WebdriverIO sessions on
 * emulated phones, with what end-to-end tests and model doubles need to read from the page.
 *
 * ```ts
 * const rig = await startRig();              // beforeAll
 * const phone = await rig.session(iphone15); // reused across the file's tests
 * await phone.open("cart", { variant: "redesign" });
 * const box = await phone.box("checkout-button"); // screenshot pixels
 * await rig.stop();                          // afterAll: sessions, browsers, Appium, demo server
 * ```
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { remote, type Browser } from "webdriverio";
import {
  startDemoServer,
  TAP_LOG_KEY,
  type DemoServer,
  type LoggedTap,
  type LoginScreen,
  type LongScreen,
  type Screen,
  type Variant,
} from "../demo/app/server.js";
import {
  createPlatformApi,
  type DeviceAdapter,
  type DeviceDescription,
  type DeviceSession,
  type PlatformApi,
  type Rect as Box,
  type Target,
} from "tapshot/adapter";
import { APPIUM_URL_ENV, connectAppium, startAppium, type AppiumOptions, type AppiumServer } from "./appium.js";
import { freePort } from "./ports.js";
import { capabilitiesFor, type PhoneProfile } from "./profiles.js";
import { rigAdapter } from "./rig-adapter.js";

/** One element of the page with a `data-testid`, as a model double sees it. */
export interface RigElement {
  testid: string;
  /** Visible text, whitespace collapsed. */
  text: string;
  /** Its box in screenshot pixels (CSS box times devicePixelRatio, rounded outwards). */
  box: Box;
  /** Whether it is rendered with a non-empty box inside the viewport. */
  visible: boolean;
}

/** What {@link RigSession.open} loads. */
export interface OpenOptions {
  /** Default `default`. */
  variant?: Variant;
  /** Fixes the varying content (balance, dates, order number, clock); default: new each load. */
  seed?: number;
  /** Draw the profile's system bars; default true. */
  bars?: boolean;
  /** Rows of the `long-cart` screen (demo/app/long-pages.ts). */
  rows?: number;
  /** Ms of a plain loading view before the screen's content (demo/app/pages.ts); default none. */
  loading?: number;
}

/** A WebdriverIO session on one emulated phone. */
export interface RigSession {
  readonly profile: PhoneProfile;
  /** The WebdriverIO Browser, connected to Appium; pass it to `ai.tap(driver, ...)`. */
  readonly driver: Browser;
  /** The rig's device adapter for this profile. */
  readonly adapter: DeviceAdapter;
  /** The adapter's session on {@link driver}, for taps and screenshots outside tapshot's flows. */
  readonly device: DeviceSession;
  /** `tap` and `expect` bound to {@link adapter}, as a platform entry exports them. */
  readonly ai: PlatformApi;
  /** Load a demo screen (with the profile's system bars) and wait until it shows; returns its URL. */
  open(screen: Screen | LongScreen | LoginScreen, options?: OpenOptions): Promise<string>;
  /** The demo screen shown (`cart`, `checkout`, `confirmation`, a long screen), or `undefined` on another page. */
  currentScreen(): Promise<Screen | LongScreen | LoginScreen | undefined>;
  /** Clicks the demo pages saw since the last {@link open} (CSS pixels, the `data-testid` hit), oldest first. */
  taps(): Promise<LoggedTap[]>;
  /** The page URL. */
  currentUrl(): Promise<string>;
  /** Every element with a `data-testid`, in document order. */
  elements(): Promise<RigElement[]>;
  /** The box of a visible element in screenshot pixels; throws naming the ids present when it is missing. */
  box(testid: string): Promise<Box>;
  /** Like {@link box}, but `undefined` when the element is missing or hidden. */
  findBox(testid: string): Promise<Box | undefined>;
  /** The adapter's description of this session's device (read once), before any target is applied. */
  describe(): Promise<DeviceDescription>;
  /** Tap the centre of an element's box through the adapter (as the engine taps a located box). */
  tapElement(testid: string): Promise<void>;
  /** A PNG screenshot through the adapter. */
  screenshot(): Promise<Buffer>;
  /** Delete the session (Appium stops its chromedriver and Chromium) and its browser profile. Idempotent. */
  close(): Promise<void>;
}

/** Appium + demo server + sessions. */
export interface Rig {
  readonly appium: AppiumServer;
  readonly demo: DemoServer;
  /** The session for a profile, opened on first use and reused after (closed by {@link stop}). */
  session(profile: PhoneProfile): Promise<RigSession>;
  /** A new session that nobody else uses; the caller closes it (or {@link stop} does). */
  openSession(profile: PhoneProfile, extras?: SessionExtras): Promise<RigSession>;
  /** Close every session, stop Appium and the demo server. Safe to call more than once. */
  stop(): Promise<void>;
}

/** What a test adds to a session's capabilities (a plugin's own, e.g. `tapshot:mode`). */
export interface SessionExtras {
  capabilities?: Record<string, unknown>;
  /** WebdriverIO's log level for the session; default `warn` (the testrunner's own default is `info`). */
  logLevel?: "trace" | "debug" | "info" | "warn" | "error" | "silent";
}

/** Profiles of open sessions by driver, for {@link rigTarget}. */
const profiles = new WeakMap<object, PhoneProfile>();

/**
 * The run's target for a rig driver: its profile's identity (`Google Pixel 7`, `14`).
 * Use as `configureAi({ target: rigTarget })` so each session gets its own device identity.
 */
export function rigTarget(driver: unknown): Target | undefined {
  return typeof driver === "object" && driver !== null ? profiles.get(driver)?.target : undefined;
}

/** The profile a rig driver was opened with. */
export function profileOf(driver: unknown): PhoneProfile | undefined {
  return typeof driver === "object" && driver !== null ? profiles.get(driver) : undefined;
}

/**
 * Start Appium and the demo server. Stop both with `rig.stop()` in `afterAll`, even when a test failed.
 * With `$TAPSHOT_RIG_APPIUM_URL` set (e.g. `http://127.0.0.1:4723`), the rig uses that Appium server instead,
 * unless `options.appium.home` asks for a server of its own (one with other extensions installed).
 */
export async function startRig(options: { appium?: AppiumOptions } = {}): Promise<Rig> {
  const external = options.appium?.home ? undefined : process.env[APPIUM_URL_ENV];
  const [demoStart, appiumStart] = await Promise.allSettled([
    startDemoServer(),
    external ? connectAppium(external) : startAppium(options.appium),
  ]);
  if (demoStart.status === "rejected" || appiumStart.status === "rejected") {
    await Promise.allSettled([
      demoStart.status === "fulfilled" && demoStart.value.stop(),
      appiumStart.status === "fulfilled" && appiumStart.value.stop(),
    ]);
    throw demoStart.status === "rejected" ? demoStart.reason : (appiumStart as PromiseRejectedResult).reason;
  }
  const demo = demoStart.value;
  const appium = appiumStart.value;
  const open = new Set<RigSession>();
  /** The reused session per profile id, while it opens and after. */
  const shared = new Map<string, { opening: Promise<RigSession>; session?: RigSession }>();
  let stopping: Promise<void> | undefined;

  const openSession = async (profile: PhoneProfile, extras?: SessionExtras) => {
    if (stopping) throw new Error("The rig is stopped; start a new one with startRig().");
    const session = await openRigSession(appium, demo, profile, extras);
    const close = session.close;
    const tracked: RigSession = Object.assign(session, {
      close: async () => {
        open.delete(tracked);
        // A closed shared session is not handed out again: the next session(profile) opens a new one.
        if (shared.get(profile.id)?.session === tracked) shared.delete(profile.id);
        await close();
      },
    });
    open.add(tracked);
    if (stopping) {
      await tracked.close();
      throw new Error("The rig was stopped while this session opened.");
    }
    return tracked;
  };

  return {
    appium,
    demo,
    openSession,
    session(profile) {
      const existing = shared.get(profile.id);
      if (existing) return existing.opening;
      const entry: { opening: Promise<RigSession>; session?: RigSession } = { opening: openSession(profile) };
      shared.set(profile.id, entry);
      entry.opening.then(
        (session) => (entry.session = session),
        () => shared.delete(profile.id),
      );
      return entry.opening;
    },
    stop() {
      stopping ??= (async () => {
        await Promise.allSettled([...open].map((s) => s.close()));
        await Promise.allSettled([appium.stop(), demo.stop()]);
      })();
      return stopping;
    },
  };
}

/** Open a session on `profile` against a running Appium server; the caller closes it. */
export async function openRigSession(
  appium: AppiumServer,
  demo: DemoServer,
  profile: PhoneProfile,
  extras: SessionExtras = {},
): Promise<RigSession> {
  const userDataDir = await mkdtemp(join(tmpdir(), `tapshot-rig-${profile.id}-`));
  let driver: Browser;
  try {
    driver = await remote({
      hostname: appium.hostname,
      port: appium.port,
      path: appium.path,
      capabilities: {
        ...capabilitiesFor(profile, { chromedriverPort: await freePort(), userDataDir }),
        ...extras.capabilities,
      } as WebdriverIO.Capabilities,
      logLevel: extras.logLevel ?? "warn",
      connectionRetryCount: 0,
      connectionRetryTimeout: 90_000,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 5 });
    throw new Error(
      `Opening an Appium session on ${profile.id} failed: ${(error as Error).message}\nAppium's output:\n${appium.output()}`,
      { cause: error },
    );
  }
  profiles.set(driver, profile);
  const adapter = rigAdapter(profile);
  const device = adapter.open(driver);
  let closing: Promise<void> | undefined;
  let described: Promise<DeviceDescription> | undefined;

  const elements = async (): Promise<RigElement[]> =>
    driver.execute(() => {
      const ratio = window.devicePixelRatio;
      return Array.from(document.querySelectorAll<HTMLElement>("[data-testid]")).map((el) => {
        const r = el.getBoundingClientRect();
        const x = Math.floor(r.left * ratio);
        const y = Math.floor(r.top * ratio);
        const box = { x, y, width: Math.ceil(r.right * ratio) - x, height: Math.ceil(r.bottom * ratio) - y };
        const style = getComputedStyle(el);
        const visible =
          r.width > 0 &&
          r.height > 0 &&
          style.visibility !== "hidden" &&
          r.bottom > 0 &&
          r.right > 0 &&
          r.top < window.innerHeight &&
          r.left < window.innerWidth;
        return {
          testid: el.dataset.testid ?? "",
          text: (el.innerText ?? "").replace(/\s+/g, " ").trim(),
          box,
          visible,
        };
      });
    });

  const findBox = async (testid: string) => (await elements()).find((e) => e.testid === testid && e.visible)?.box;

  const session: RigSession = {
    profile,
    driver,
    adapter,
    device,
    ai: createPlatformApi(adapter),

    async open(screen, options = {}) {
      const bars = options.bars === false ? undefined : { ...profile.bars, platform: profile.platform };
      const url = demo.pageUrl(screen, {
        variant: options.variant ?? "default",
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(bars ? { bars } : {}),
        ...(options.rows === undefined ? {} : { rows: options.rows }),
        ...(options.loading ? { loading: options.loading } : {}),
      });
      await driver.url(url);
      const shown = await session.currentScreen();
      if (shown !== screen) throw new Error(`Loading ${url} showed ${shown ?? "no demo screen"}, not ${screen}.`);
      await driver.execute((key) => sessionStorage.removeItem(key), TAP_LOG_KEY);
      return url;
    },

    async currentScreen() {
      const screen = await driver.execute(() => document.body?.dataset.screen);
      return (screen ?? undefined) as Screen | LongScreen | LoginScreen | undefined;
    },

    async taps() {
      const log = await driver.execute((key) => sessionStorage.getItem(key), TAP_LOG_KEY);
      return log ? (JSON.parse(log) as LoggedTap[]) : [];
    },

    currentUrl: () => driver.getUrl(),
    elements,
    findBox,

    async box(testid) {
      const box = await findBox(testid);
      if (box) return box;
      const ids = (await elements()).filter((e) => e.visible).map((e) => e.testid);
      throw new Error(`No visible element with data-testid "${testid}" on this page; visible: ${ids.join(", ")}.`);
    },

    async describe() {
      described ??= device.describe(() => {});
      return described;
    },

    async tapElement(testid) {
      const box = await session.box(testid);
      const point = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
      await session.describe();
      await device.tap(point);
    },

    screenshot: () => device.screenshot(),

    close() {
      closing ??= (async () => {
        try {
          await driver.deleteSession();
        } finally {
          await rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
        }
      })();
      return closing;
    },
  };
  return session;
}
