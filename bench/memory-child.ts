/**
 * One process of the memory benchmark: attaches to an open rig session and runs N steps of
 * the demo flow, either through tapshot (`sdk`: `ai.tap` replays in replay mode) or raw
 * (`raw`: `takeScreenshot` + a W3C touch tap at the stored point, without loading tapshot),
 * then prints its peak RSS as one JSON line. Spawned by memory.ts.
 */
import { attach, type Browser } from "webdriverio";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { libvipsLoaded, peakRssMb } from "./stats.js";

/** What memory.ts passes as the one argument (JSON). */
export interface ChildInput {
  mode: "sdk" | "raw";
  sessionId: string;
  port: number;
  capabilities: WebdriverIO.Capabilities;
  cartUrl: string;
  storageDir: string;
  /** Profile id of the session, for the rig adapter. */
  profile: string;
  steps: { screen: string; next: string; prompt: string; x: number; y: number }[];
  count: number;
  /** Experiment knob (not used by `npm run bench`): turn libvips' operation cache off in the sdk child. */
  sharpCache?: boolean;
  /** Run V8's full collection after every step, so the peak holds what is kept, not garbage not yet collected. */
  collect?: boolean;
}

async function waitForScreen(driver: Browser, screen: string): Promise<void> {
  await driver.waitUntil(async () => (await driver.execute(() => document.body?.dataset.screen)) === screen, {
    timeout: 15_000,
    interval: 20,
  });
}

async function touchTap(driver: Browser, x: number, y: number): Promise<void> {
  await driver.performActions([
    {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, origin: "viewport", x, y },
        { type: "pointerDown", button: 0 },
        { type: "pause", duration: 50 },
        { type: "pointerUp", button: 0 },
      ],
    },
  ]);
  await driver.releaseActions();
}

const input = JSON.parse(process.argv[2]!) as ChildInput;
const driver = await attach({
  sessionId: input.sessionId,
  hostname: "127.0.0.1",
  port: input.port,
  path: "/",
  capabilities: input.capabilities,
  logLevel: "warn",
});

let step: (i: number) => Promise<void>;
if (input.mode === "sdk") {
  const [{ createPlatformApi }, { configureAi }, { rigAdapter }, { PROFILES }] = await Promise.all([
    import("tapshot/adapter"),
    import("tapshot/runner"),
    import("../rig/rig-adapter.js"),
    import("../rig/profiles.js"),
  ]);
  if (input.sharpCache === false) (await import("sharp")).default.cache(false);
  const profile = PROFILES[input.profile]!;
  configureAi({ storageDir: input.storageDir, target: profile.target, mode: "replay", log: false, resultsDir: false });
  const ai = createPlatformApi(rigAdapter(profile));
  step = async (i) => {
    const result = await ai.tap(driver, input.steps[i % input.steps.length]!.prompt);
    if (result.outcome !== "replayed") throw new Error(`step ${i} was ${result.outcome}`);
  };
} else {
  step = async (i) => {
    const { x, y } = input.steps[i % input.steps.length]!;
    Buffer.from(await driver.takeScreenshot(), "base64");
    await touchTap(driver, x, y);
  };
}

/** V8's full collection, reached without starting Node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
const collect = input.collect ? collector() : () => {};

await driver.url(input.cartUrl);
for (let i = 0; i < input.count; i++) {
  await waitForScreen(driver, input.steps[i % input.steps.length]!.screen);
  await step(i);
  collect();
}
await waitForScreen(driver, input.steps[input.count % input.steps.length]!.screen);
console.log(
  JSON.stringify({
    peakRssMb: peakRssMb(),
    rssAtEndMb: Math.round(process.memoryUsage().rss / 2 ** 20),
    libvipsLoaded: libvipsLoaded(),
  }),
);
