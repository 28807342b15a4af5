/**
 * Box frames per model family, against the OpenAI double answering as each family does
 * (rig/model-doubles/frames.ts): Qwen2.5-VL and UI-TARS-1.5 in pixels of their own
 * 28-multiple resize, Qwen3-VL and UI-TARS v1 in 0-1000; and the refinement pass, whose answer
 * may come in the crop's frame (as asked) or the screenshot's.
 */
import type { AiImage, Box } from "../../src/core/model/contract.js";
import { AiAnswerError, ConfigError } from "../../src/core/ground/errors.js";
import { openai } from "../../src/providers/index.js";
import { startOpenAiDouble, type OpenAiDoubleOptions, type WireDouble } from "../../rig/model-doubles/index.js";
import { qwenResize } from "../../rig/model-doubles/frames.js";
import { CHECKOUT, checkoutKnowledge, expectBoxNear, noAbort, phoneScreen } from "./fixtures.js";

let screen: AiImage;
const doubles: WireDouble[] = [];

beforeAll(async () => {
  screen = await phoneScreen();
});
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

async function start(options: OpenAiDoubleOptions, knowledge = checkoutKnowledge()): Promise<WireDouble> {
  const double = await startOpenAiDouble(knowledge, { server: "vllm", ...options });
  doubles.push(double);
  return double;
}

const boxOf = (answer: unknown) => (answer as { box?: Box }).box;
const locate = (channel: ReturnType<typeof openai>) =>
  channel.request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() });

describe("the double's Qwen2.5-VL resize is the documented one", () => {
  test("590x1280 becomes 588x1288; sides that are multiples of 28 stay", () => {
    expect(qwenResize(590, 1280)).toEqual({ width: 588, height: 1288 });
    expect(qwenResize(588, 1288)).toEqual({ width: 588, height: 1288 });
  });
});

describe("each family's boxes land on the element", () => {
  test.each<[string, OpenAiDoubleOptions["family"], Parameters<typeof openai>[0]]>([
    ["Qwen2.5-VL, named by the model", "qwen2.5-vl", { model: "Qwen/Qwen2.5-VL-7B-Instruct" }],
    ["Qwen2.5-VL, by the coordinates option", "qwen2.5-vl", { model: "my-vl", coordinates: "qwen2.5-vl" }],
    ["UI-TARS-1.5", "ui-tars-1.5", { model: "ByteDance-Seed/UI-TARS-1.5-7B" }],
    ["Qwen3-VL, named by the model", "qwen3-vl", { model: "qwen3-vl:8b" }],
    ["UI-TARS v1", "ui-tars-1", { model: "bytedance-research/UI-TARS-7B-DPO" }],
    ["a GPT-style server in pixels", "gpt", { model: "some-vision-model" }],
  ])("%s", async (_what, family, options) => {
    const double = await start({ family });
    const answer = await locate(openai({ baseURL: `${double.baseUrl}/v1`, refine: false, ...options }));
    // 0-1000 rounding is at most one unit (1.2 px wide, 2.6 px high); pixel frames are exact to rounding.
    expectBoxNear(boxOf(answer), CHECKOUT, 3);
  });

  test("Qwen2.5-VL gets images whose sides are multiples of 28, refinement crops included", async () => {
    const double = await start({ family: "qwen2.5-vl" });
    const answer = await locate(openai({ baseURL: `${double.baseUrl}/v1`, model: "Qwen/Qwen2.5-VL-7B-Instruct" }));
    expect(double.received.map((r) => [r.images[0]!.width % 28, r.images[0]!.height % 28])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(double.received[0]!.images[0]).toMatchObject({ width: 588, height: 1288 });
    expectBoxNear(boxOf(answer), CHECKOUT, 3);
  });

  test("a 0-1000 box read as pixels is refused with the option to set, not clamped", async () => {
    const double = await start({ family: "qwen3-vl" });
    const error = await locate(
      openai({ baseURL: `${double.baseUrl}/v1`, model: "vl", coordinates: "pixels", refine: false }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiAnswerError);
    expect((error as Error).message).toMatch(
      /reaches beyond the 590x1280 image.*Set the coordinates option.*"qwen3-vl"/,
    );
  });

  test("an unknown coordinates value is a ConfigError listing the families", () => {
    expect(() => openai({ baseURL: "http://127.0.0.1:1/v1", coordinates: "qwen" as never })).toThrow(ConfigError);
    expect(() => openai({ baseURL: "http://127.0.0.1:1/v1", coordinates: "qwen" as never })).toThrow(/coordinates/);
  });
});

describe("the refinement pass states one frame and reads either", () => {
  test("the prompt asks for the box in the crop's pixels and gives the screen numbers as context only", async () => {
    const double = await start({ family: "gpt" });
    await locate(openai({ baseURL: `${double.baseUrl}/v1`, model: "m" }));
    const refine = double.received[1]!;
    const crop = refine.images[0]!;
    expect(refine.text).toContain(`in pixels of image "crop" (it is ${crop.width}x${crop.height} pixels`);
    expect(refine.text).toMatch(/For context only.*in the screenshot's pixels.*Do not write your box in those numbers/);
  });

  test.each<["crop" | "screen"]>([["crop"], ["screen"]])(
    "a model answering in the %s frame ends on the element",
    async (refineFrame) => {
      // The first pass (on the whole screenshot, whose bytes the knowledge gets) is 40 px off; only an
      // accepted refinement lands on the element.
      const exact = checkoutKnowledge();
      const coarse: typeof exact = {
        ...exact,
        locate: async (target, image) => {
          const result = await exact.locate!(target, image);
          if (!image.bytes || !("box" in result)) return result;
          const s = image.width / 1179;
          return { ...result, box: { ...result.box, x: result.box.x + 40 * s, y: result.box.y - 40 * s } };
        },
      };
      const double = await start({ family: "gpt", refineFrame }, coarse);
      const answer = await locate(openai({ baseURL: `${double.baseUrl}/v1`, model: "m" }));
      expect(double.calls("locate")).toBe(2);
      expectBoxNear(boxOf(answer), CHECKOUT, 2);
    },
  );
});
