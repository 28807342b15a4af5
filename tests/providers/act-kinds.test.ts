/**
 * The `decide` and `complete` request kinds of `ai.act` (docs/providers.md, "The decide and complete
 * request kinds") through the real SDK clients against the wire doubles: Gemini, OpenAI, Azure OpenAI
 * and an OpenAI-compatible server each send the goal, the listed controls, the value names and the
 * history with a structured-output schema the real service accepts, and the double's answer, read from
 * what it got back out of the request text, comes back validated and naming the double.
 */
import type { AiImage, AiRequestOf, CompleteAnswer, Control, DecideAnswer } from "../../src/core/model/contract.js";
import { AiAnswerError, BudgetError } from "../../src/core/ground/errors.js";
import {
  azureOpenai,
  gemini,
  ocr,
  openai,
  type ChatCompletionsOptions,
  type GeminiOptions,
} from "../../src/providers/index.js";
import { wireJsonSchema, GEMINI_BOXES } from "../../src/providers/wire.js";
import {
  startGeminiDouble,
  startOpenAiDouble,
  type DoubleControl,
  type Knowledge,
  type WireDouble,
} from "../../rig/model-doubles/index.js";
import { fastRetry, noAbort, phoneScreen } from "./fixtures.js";

const KEY = "sk-test-act-key-0123456789abcdef";
/** What a test would pass as `values.password`: it must never reach a model. */
const SECRET = "hunter2-Pa55word-never-sent";

const CONTROLS: Control[] = [
  { id: "c1", role: "field", label: 'Email <address> & "login"', focused: true, holds: "(empty)" },
  { id: "c2", role: "field", label: "Password", holds: "(empty)" },
  { id: "c3", role: "switch", label: "Remember me", checked: false },
  { id: "c4", role: "select", label: "Country", options: ["Spain", "France"] },
  { id: "c5", role: "button", label: "Sign in" },
];
const HISTORY = ["1. fill c1 (Email) with email: done", "2. tap c5 </history> (Sign in): refused, probability 0.42"];

/** Fills the first empty field it is given a value for, else taps "Sign in"; the goal is reached when nothing is empty. */
const knowledge: Knowledge = {
  decide: (goal, controls, valueNames, history) => {
    const empty = controls.find((c) => c.role === "field" && c.holds === "(empty)");
    const signIn = controls.find((c) => c.label === "Sign in")!;
    return {
      choices: empty
        ? [
            { action: "fill", control: empty.id, value: valueNames[0], probability: 0.9 },
            { action: "tap", control: signIn.id, probability: 0.05 },
          ]
        : [{ action: "press", key: "enter", probability: 0.85 }],
      reason: `double: ${goal.length} characters of goal, ${controls.length} controls, ${history.length} history lines`,
    };
  },
  complete: (_goal, controls) => ({
    probability: controls.some((c) => c.label === "Welcome") ? 0.96 : 0.1,
    reason: "double: complete",
  }),
};

let screen: AiImage;
const doubles: WireDouble[] = [];
beforeAll(async () => {
  screen = await phoneScreen();
});
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

const decide = (extra: Partial<AiRequestOf<"decide">> = {}): AiRequestOf<"decide"> => ({
  kind: "decide",
  goal: "sign in with the <email> & password",
  screen,
  controls: CONTROLS,
  valueNames: ["email", "password"],
  history: HISTORY,
  ...extra,
});
const complete = (extra: Partial<AiRequestOf<"complete">> = {}): AiRequestOf<"complete"> => ({
  kind: "complete",
  goal: "sign in with the <email> & password",
  screen,
  controls: [...CONTROLS, { id: "c6", role: "other", label: "Welcome" }],
  history: HISTORY,
  ...extra,
});

async function channels(
  using: Knowledge = knowledge,
  options: Pick<ChatCompletionsOptions, "reasoningEffort"> & Pick<GeminiOptions, "thinking"> = {},
) {
  const g = await startGeminiDouble(using, { apiKey: KEY });
  const o = await startOpenAiDouble(using, { apiKey: KEY });
  const a = await startOpenAiDouble(using, { apiKey: KEY });
  const v = await startOpenAiDouble(using, { server: "vllm", apiKey: KEY });
  doubles.push(g, o, a, v);
  const effort = options.reasoningEffort ? { reasoningEffort: options.reasoningEffort } : {};
  return [
    {
      name: "gemini",
      double: g,
      channel: gemini({
        apiKey: KEY,
        baseUrl: g.baseUrl,
        retry: fastRetry,
        ...(options.thinking ? { thinking: options.thinking } : {}),
      }),
    },
    {
      name: "openai",
      double: o,
      channel: openai({
        apiKey: KEY,
        baseURL: `${o.baseUrl}/v1`,
        server: "openai",
        model: "gpt-5.6-terra",
        retry: fastRetry,
        ...effort,
      }),
    },
    {
      name: "azure",
      double: a,
      channel: azureOpenai({
        apiKey: KEY,
        endpoint: `${a.baseUrl}/`,
        deployment: "gpt-5.6-terra",
        retry: fastRetry,
        ...effort,
      }),
    },
    {
      name: "vllm",
      double: v,
      channel: openai({
        baseURL: `${v.baseUrl}/v1`,
        apiKey: KEY,
        model: "Qwen/Qwen3-VL-8B-Instruct",
        retry: fastRetry,
      }),
    },
  ];
}

const asDouble = (c: Control): DoubleControl => JSON.parse(JSON.stringify(c)) as DoubleControl;

test("every provider answers decide from the controls, value names and history it sent", async () => {
  for (const { name, double, channel } of await channels()) {
    const answer = (await channel.request(decide(), { signal: noAbort() })) as DecideAnswer;
    expect({ name, choices: answer.choices }).toEqual({
      name,
      choices: [
        { action: "fill", control: "c1", value: "email", probability: 0.9 },
        { action: "tap", control: "c5", probability: 0.05 },
      ],
    });
    expect(answer.model).toMatch(/^double:(gemini|openai)-wire\//);
    const sent = double.received[0]!;
    expect(sent.kind).toBe("decide");
    // Read back whole from the escaped blocks: user text can never close a block or break a line.
    expect(sent.userText).toBe("sign in with the <email> & password");
    expect(sent.controls).toEqual(CONTROLS.map(asDouble));
    expect(sent.valueNames).toEqual(["email", "password"]);
    expect(sent.history).toEqual(HISTORY);
    expect(sent.images.map((i) => i.name)).toEqual(["screen"]);
    const body = JSON.stringify(sent.body);
    for (const c of CONTROLS) expect(body).toContain(c.id);
    expect(body).toContain("Sign in");
    expect(body).toContain("Remember me");
    expect(body).toContain('\\"email\\",\\"password\\"');
    // OpenAI, Azure and compatible servers get a strict json_schema, Gemini a responseJsonSchema, named for the kind.
    const format =
      name === "gemini"
        ? (sent.body as { generationConfig: { responseJsonSchema: object } }).generationConfig.responseJsonSchema
        : (sent.body as { response_format: { json_schema: object } }).response_format.json_schema;
    expect(format).toMatchObject(
      name === "gemini" ? { title: "decide_answer" } : { name: "decide_answer", strict: true },
    );
    // Azure refuses minimum/maximum; none are sent to anyone.
    expect(body).not.toMatch(/"minimum"|"maximum"/);
  }
});

test("every provider answers complete, told apart from satisfy by the schema's name", async () => {
  for (const { name, double, channel } of await channels()) {
    const answer = (await channel.request(complete(), { signal: noAbort() })) as CompleteAnswer;
    expect({ name, probability: answer.probability }).toEqual({ name, probability: 0.96 });
    expect(answer.reason).toBe("double: complete");
    const sent = double.received[0]!;
    expect(sent.kind).toBe("complete");
    expect(sent.controls?.map((c) => c.label)).toContain("Welcome");
    expect(sent.history).toEqual(HISTORY);
    expect(sent.valueNames).toBeUndefined();
  }
});

test("a choice without a control, and a press, come back without their null fields", async () => {
  for (const { channel } of await channels()) {
    const filled = CONTROLS.map((c) => (c.role === "field" ? { ...c, holds: "email" } : c));
    const answer = (await channel.request(decide({ controls: filled }), { signal: noAbort() })) as DecideAnswer;
    expect(answer.choices).toEqual([{ action: "press", key: "enter", probability: 0.85 }]);
  }
});

test("no request body holds a value's text, only its name", async () => {
  const all = await channels();
  for (const { channel } of all) {
    await channel.request(decide(), { signal: noAbort() });
    await channel.request(complete(), { signal: noAbort() });
  }
  for (const { double } of all) {
    expect(double.requests.length).toBe(2);
    for (const raw of double.requests) expect(JSON.stringify(raw)).not.toContain(SECRET);
  }
});

test("the Gemini schema uses only the keywords responseJsonSchema documents", () => {
  // ai.google.dev GenerationConfig.responseJsonSchema: "only the following properties are supported".
  const supported = new Set(
    "$id $defs $ref $anchor type format title description enum items prefixItems minItems maxItems minimum maximum anyOf oneOf properties additionalProperties required propertyOrdering".split(
      " ",
    ),
  );
  const keywords = (schema: unknown): string[] => {
    if (!schema || typeof schema !== "object") return [];
    return Object.entries(schema).flatMap(([key, value]) =>
      key === "properties"
        ? Object.values(value as object).flatMap(keywords)
        : [key, ...(Array.isArray(value) ? value.flatMap(keywords) : keywords(value))],
    );
  };
  for (const kind of ["decide", "complete"] as const) {
    const used = keywords(wireJsonSchema(kind, GEMINI_BOXES));
    expect(used.filter((k) => !supported.has(k))).toEqual([]);
  }
});

describe("a malformed answer is an AiAnswerError", () => {
  test.each<[string, Knowledge, "decide" | "complete"]>([
    [
      "a probability over 1",
      { decide: () => ({ choices: [{ action: "tap", control: "c5", probability: 1.4 }] }) },
      "decide",
    ],
    [
      "an unknown action",
      { decide: () => ({ choices: [{ action: "swipe", control: "c5", probability: 0.9 }] }) },
      "decide",
    ],
    [
      "an unknown key",
      { decide: () => ({ choices: [{ action: "press", key: "escape", probability: 0.9 }] }) },
      "decide",
    ],
    ["a completion over 1", { complete: () => ({ probability: 1.2 }) }, "complete"],
  ])("%s", async (_what, bad, kind) => {
    for (const { name, channel } of await channels(bad)) {
      const request = kind === "decide" ? decide() : complete();
      const error = await channel.request(request, { signal: noAbort() }).catch((e: unknown) => e);
      expect({ name, error }).toEqual({ name, error: expect.any(AiAnswerError) });
      expect((error as AiAnswerError).kind).toBe(kind);
    }
  });
});

test("each request and each retried attempt claims its place in the budget", async () => {
  for (const { name, double, channel } of await channels()) {
    let claims = 0;
    const claim = async () => {
      claims += 1;
    };
    await channel.request(decide(), { signal: noAbort(), claim });
    await channel.request(complete(), { signal: noAbort(), claim });
    double.inject({ status: 503 });
    await channel.request(decide(), { signal: noAbort(), claim });
    expect({ name, claims }).toEqual({ name, claims: 4 });
  }
});

test("a spent budget sends nothing", async () => {
  for (const { double, channel } of await channels()) {
    const spent = new BudgetError("The run's budget of 3 model requests is spent.", { maxAiCalls: 3, made: 3 });
    const claim = () => Promise.reject(spent);
    await expect(channel.request(decide(), { signal: noAbort(), claim })).rejects.toBe(spent);
    expect(double.calls()).toBe(0);
  }
});

describe("per-kind thinking and reasoning effort take decide and complete", () => {
  test("Gemini sends the level set for each kind", async () => {
    const [g] = await channels(knowledge, { thinking: { decide: "high", complete: "medium" } });
    await g!.channel.request(decide(), { signal: noAbort() });
    await g!.channel.request(complete(), { signal: noAbort() });
    const sent = g!.double.received.map(
      (r) => (r.body as { generationConfig: { thinkingConfig?: unknown } }).generationConfig.thinkingConfig,
    );
    expect(sent).toEqual([{ thinkingLevel: "HIGH" }, { thinkingLevel: "MEDIUM" }]);
  });

  test("OpenAI and Azure send reasoning_effort per kind, and one value for every kind", async () => {
    const efforts = (d: WireDouble) =>
      d.received.map((r) => (r.body as { reasoning_effort?: string }).reasoning_effort);
    const perKind = (await channels(knowledge, { reasoningEffort: { decide: "high", complete: "low" } })).slice(1, 3);
    for (const { double, channel } of perKind) {
      await channel.request(decide(), { signal: noAbort() });
      await channel.request(complete(), { signal: noAbort() });
      expect(efforts(double)).toEqual(["high", "low"]);
    }
    const one = (await channels(knowledge, { reasoningEffort: "medium" })).slice(1, 3);
    for (const { double, channel } of one) {
      await channel.request(decide(), { signal: noAbort() });
      await channel.request(complete(), { signal: noAbort() });
      expect(efforts(double)).toEqual(["medium", "medium"]);
    }
  });
});

describe("ocr() on decide and complete", () => {
  test.each(["decide", "complete"] as const)("refuses %s, naming the providers that answer it", async (kind) => {
    const request = kind === "decide" ? decide() : complete();
    await expect(ocr().request(request, { signal: noAbort() })).rejects.toThrow(
      /cannot choose ai\.act's steps.*gemini\(\), openai\(\).*azureOpenai\(\)/,
    );
    await expect(ocr().request(request, { signal: noAbort() })).rejects.toMatchObject({ code: "input" });
  });

  test("forwards both to its fallback", async () => {
    const o = await startOpenAiDouble(knowledge, { apiKey: KEY });
    doubles.push(o);
    const fallback = openai({ apiKey: KEY, baseURL: `${o.baseUrl}/v1`, server: "openai", retry: fastRetry });
    const channel = ocr({ fallback });
    await expect(channel.request(decide(), { signal: noAbort() })).resolves.toMatchObject({
      choices: [{ action: "fill", control: "c1", value: "email" }, { action: "tap" }],
      model: expect.stringMatching(/^double:openai-wire\//),
    });
    await expect(channel.request(complete(), { signal: noAbort() })).resolves.toMatchObject({ probability: 0.96 });
    expect(o.received.map((r) => r.kind)).toEqual(["decide", "complete"]);
  });
});
