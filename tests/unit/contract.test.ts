import sharp from "sharp";
import {
  AI_KINDS,
  AiRequestSchema,
  answerSchemas,
  ask,
  parseAnswer,
  type AiChannel,
  type AiImage,
  type AiKind,
} from "../../src/core/model/contract.js";
import { AiAnswerError, TapshotError } from "../../src/core/ground/errors.js";
import { toAiImage } from "../../src/core/run/call.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let screen: AiImage;
beforeAll(async () => {
  screen = await toAiImage(
    await sharp({ create: { width: 36, height: 64, channels: 4, background: "#336699" } })
      .png()
      .toBuffer(),
  );
});

const model = SCRIPTED_MODEL;
const valid: Record<AiKind, unknown> = {
  locate: { found: true, box: { x: 1, y: 2, width: 3, height: 4 }, reason: "the green button", model },
  check: { pass: false, reason: "the summary is not shown", model },
  judge: { accept: true, varying: [{ x: 0, y: 0, width: 36, height: 5 }], reason: "the cart", model },
  compare: { realChange: false, reason: "only the date changed", model, usage: { inputTokens: 10, outputTokens: 2 } },
  satisfy: { probability: 0.93, reason: "the status reads Refund requested", model },
  decide: {
    choices: [
      { action: "fill", control: "c3", value: "email", probability: 0.92 },
      { action: "tap", control: "c7", probability: 0.05 },
    ],
    reason: "the email field is empty",
    model,
  },
  complete: { probability: 0.95, reason: "the welcome screen is shown", model },
};

describe("answers", () => {
  test.each(Object.keys(valid) as AiKind[])("a valid %s answer parses", (kind) => {
    expect(parseAnswer(kind, valid[kind])).toEqual(valid[kind]);
  });

  test("a locate answer that is not found needs no box", () => {
    expect(parseAnswer("locate", { found: false, reason: "no such button", model })).toEqual({
      found: false,
      reason: "no such button",
      model,
    });
  });

  test.each<[AiKind, unknown, RegExp]>([
    ["locate", { found: true, reason: "here", model }, /"locate" answer: box: found is true but no box was given/],
    ["locate", { found: true, box: { x: 1, y: 2, width: 0, height: 4 }, reason: "r", model }, /box\.width/],
    ["locate", { found: true, box: { x: -1, y: 2, width: 3, height: 4 }, reason: "r", model }, /box\.x/],
    ["check", { pass: "yes", reason: "r", model }, /"check" answer: pass:/],
    ["check", { pass: true, reason: "r" }, /"check" answer: model:/],
    ["check", { pass: true, reason: "r", model: "" }, /model:/],
    ["judge", { accept: true, varying: [{ x: 0, y: 0 }], reason: "r", model }, /"judge" answer: varying\.0\.width/],
    ["compare", { changed: true, reason: "r", model }, /"compare" answer: realChange:/],
    ["compare", "a real change", /"compare" answer: \(root\):/],
    ["judge", null, /"judge" answer: \(root\):/],
  ])("a malformed %s answer is an AiAnswerError naming the kind and the issue", (kind, answer, message) => {
    let error: unknown;
    try {
      parseAnswer(kind, answer);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AiAnswerError);
    expect(error).toBeInstanceOf(TapshotError);
    expect((error as AiAnswerError).code).toBe("ai-answer");
    expect((error as AiAnswerError).kind).toBe(kind);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/^The model channel gave a malformed/);
  });

  test("an answer of another kind does not pass for this one", () => {
    expect(() => parseAnswer("check", valid.locate)).toThrow(/"check" answer: pass:/);
  });

  test("a satisfy answer's probability lies from 0 to 1", () => {
    expect(() => parseAnswer("satisfy", { ...(valid.satisfy as object), probability: 1.2 })).toThrow(/probability/);
    expect(() => parseAnswer("satisfy", { ...(valid.satisfy as object), probability: -0.1 })).toThrow(/probability/);
  });

  test("a decide answer names an action of the closed set, with its probability from 0 to 1", () => {
    const choice = { action: "tap", control: "c7", probability: 0.9 };
    const decide = (choices: unknown[]) => parseAnswer("decide", { ...(valid.decide as object), choices });
    expect(() => decide([{ ...choice, action: "swipe" }])).toThrow(/choices\.0\.action/);
    expect(() => decide([{ ...choice, probability: 1.01 }])).toThrow(/choices\.0\.probability/);
    expect(() => decide([{ action: "press", key: "escape", probability: 0.9 }])).toThrow(/choices\.0\.key/);
    expect(() => decide(Array.from({ length: 11 }, () => choice))).toThrow(/choices/);
    expect(decide([]).choices).toEqual([]);
    expect(() => parseAnswer("complete", { ...(valid.complete as object), probability: 1.5 })).toThrow(
      /"complete" answer: probability/,
    );
  });

  test("answerSchemas holds one schema per kind", () => {
    expect(Object.keys(answerSchemas).sort()).toEqual([...AI_KINDS].sort());
  });
});

describe("requests", () => {
  test("every request kind is JSON-serialisable and parses", () => {
    const requests = [
      { kind: "locate", screen, prompt: "the checkout button" },
      { kind: "locate", screen, prompt: "the checkout button", reference: screen },
      { kind: "check", screen, statement: "the order summary is shown" },
      { kind: "judge", screen, prompt: "the cart", references: [{ device: "iphone-15-pro_17.5", image: screen }] },
      { kind: "judge", screen, prompt: "the cart", references: [] },
      { kind: "compare", screen, baseline: screen, diff: screen, prompt: "the cart" },
      { kind: "satisfy", statement: "a refund is requested", evidence: 'text: "Refund requested"' },
      { kind: "satisfy", statement: "the chart rises", evidence: "(no text)", screen, context: "dates vary" },
      {
        kind: "decide",
        goal: "sign in",
        screen,
        controls: [
          { id: "c1", role: "field", label: "Email", holds: "(empty)", focused: true },
          { id: "c2", role: "switch", label: "Remember me", checked: false },
          { id: "c3", role: "select", label: "Country", options: ["Spain", "France"] },
        ],
        valueNames: ["email"],
        history: [],
      },
      { kind: "complete", goal: "sign in", screen, controls: [], history: ["1. tap c5 (Sign in): done"] },
    ];
    for (const request of requests) {
      expect(AiRequestSchema.parse(JSON.parse(JSON.stringify(request)))).toEqual(request);
    }
  });

  test("images carry mimeType, base64 data and their size", () => {
    expect(screen).toMatchObject({ mimeType: "image/png", width: 36, height: 64 });
    expect(Buffer.from(screen.data, "base64").subarray(1, 4).toString()).toBe("PNG");
  });

  test.each([
    { kind: "locate", screen, prompt: "" },
    { kind: "check", screen },
    { kind: "judge", screen, prompt: "p" },
    { kind: "compare", screen: { ...screen, mimeType: "image/gif" }, baseline: screen, diff: screen, prompt: "p" },
    { kind: "tap", screen, prompt: "p" },
    {
      kind: "decide",
      goal: "g",
      screen,
      controls: [{ id: "c1", role: "slider", label: "x" }],
      valueNames: [],
      history: [],
    },
    {
      kind: "decide",
      goal: "g",
      screen,
      controls: [],
      valueNames: Array.from({ length: 11 }, (_, i) => `v${i}`),
      history: [],
    },
    { kind: "complete", goal: "", screen, controls: [], history: [] },
    {
      kind: "complete",
      goal: "g",
      screen,
      controls: Array.from({ length: 501 }, (_, i) => ({ id: `c${i}`, role: "button", label: "b" })),
      history: [],
    },
  ])("an invalid request is refused: %#", (request) => {
    expect(AiRequestSchema.safeParse(request).success).toBe(false);
  });
});

describe("ask", () => {
  test("sends the request with the signal and returns the validated answer", async () => {
    const channel = new ScriptedChannel({ check: () => valid.check });
    const controller = new AbortController();
    let seenSignal: AbortSignal | undefined;
    const spy: AiChannel = {
      request(request, options) {
        seenSignal = options.signal;
        return channel.request(request, options);
      },
    };
    const answer = await ask(spy, { kind: "check", screen, statement: "the summary" }, { signal: controller.signal });
    expect(answer).toEqual(valid.check);
    expect(seenSignal).toBe(controller.signal);
    expect(channel.requests).toEqual([{ kind: "check", screen, statement: "the summary" }]);
  });

  test("a malformed answer from the channel is an AiAnswerError, not a guess", async () => {
    const channel = new ScriptedChannel({ locate: () => ({ found: true, reason: "somewhere", model }) });
    await expect(
      ask(channel, { kind: "locate", screen, prompt: "the button" }, { signal: new AbortController().signal }),
    ).rejects.toThrow(AiAnswerError);
  });

  test("unknown fields are dropped from answers", async () => {
    const channel = new ScriptedChannel({ check: () => ({ ...(valid.check as object), extra: "x" }) });
    const answer = await ask(
      channel,
      { kind: "check", screen, statement: "s" },
      { signal: new AbortController().signal },
    );
    expect(answer).not.toHaveProperty("extra");
  });
});
