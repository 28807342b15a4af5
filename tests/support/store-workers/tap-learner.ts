/**
 * `tap-learner.ts <store> <modelDelayMs>`: after "go", tap "the checkout button" on a fake phone
 * (a new device: nothing stored yet) through the store, with a scripted channel that answers after
 * `modelDelayMs`. Reports the call's outcome and how many model requests this process made.
 */
import { createPlatformApi } from "../../../src/core/engine/engine.js";
import { configureAi } from "../../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../scripted-channel.js";
import { openStore } from "./open-store.js";
import { args, ready, report } from "./worker-io.js";

const [spec, delayText] = args;
const device = new FakeDevice(checkoutScene());
const channel = new ScriptedChannel({ locate: locateOnDevice(device) });
channel.delayMs = Number(delayText);
configureAi({ channel, store: openStore(spec!), mode: "auto", log: false, resultsDir: false });
const api = createPlatformApi(fakeAdapter());

await ready();
const result = await api.tap(fakeDriver(device), "the checkout button");
report({ outcome: result.outcome, aiCalls: result.aiCalls, modelRequests: channel.count() });
