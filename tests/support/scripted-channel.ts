/**
 * The scripted channel (rig/scripted-channel.ts) and scripts for the device double of the unit tests.
 */
import type { AiAnswers } from "../../src/core/model/contract.js";
import { SCRIPTED_MODEL, type AiRequestOf } from "../../rig/scripted-channel.js";
import type { FakeDevice } from "./fake-device.js";

export { SCRIPTED_MODEL, ScriptedChannel } from "../../rig/scripted-channel.js";

/** A `locate` script that finds a fake element by the id the prompt names (e.g. "the checkout button" -> `checkout`). */
export function locateOnDevice(device: FakeDevice): (r: AiRequestOf<"locate">) => AiAnswers["locate"] {
  return (request) => {
    const element = device.scene.elements.find((e) => request.prompt.includes(e.id));
    if (!element) return { found: false, reason: `no element named in "${request.prompt}"`, model: SCRIPTED_MODEL };
    const { x, y, width, height } = element;
    return { found: true, box: { x, y, width, height }, reason: `element ${element.id}`, model: SCRIPTED_MODEL };
  };
}
