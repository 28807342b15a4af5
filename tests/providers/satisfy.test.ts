/**
 * The `satisfy` request kind (docs/providers.md, "The satisfy request kind") through the real SDK
 * clients against the wire doubles: Gemini, OpenAI, Azure OpenAI and an OpenAI-compatible server
 * each send the statement and evidence in their tagged blocks with a structured-output schema for
 * `{ reason, probability }`, and the double's scripted answer comes back validated, naming the double.
 * ocr() decides quoted-text statements from the evidence alone and refuses the rest.
 */
import type { AiImage, AiRequestOf, SatisfyAnswer } from "../../src/core/model/contract.js";
import { azureOpenai, gemini, ocr, openai } from "../../src/providers/index.js";
import {
  startGeminiDouble,
  startOpenAiDouble,
  type Knowledge,
  type WireDouble,
} from "../../rig/model-doubles/index.js";
import { fastRetry, noAbort, phoneScreen } from "./fixtures.js";

const KEY = "sk-test-satisfy-key-0123456789abcdef";
const EVIDENCE =
  'text: "Refund requested" "Order <42> & more"\naccessibility tree:\n- TextView #status "Refund requested"';

/** The double answers from the script: how likely the statement is, given the evidence it read. */
const knowledge: Knowledge = {
  satisfy: (statement, evidence, image) => ({
    probability: evidence.includes("Refund requested") && statement.includes("refund") ? 0.94 : 0.07,
    reason: `double: read ${evidence.length} characters${image ? ` and a ${image.width}x${image.height} image` : ""}`,
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

const request = (extra: Partial<AiRequestOf<"satisfy">> = {}): AiRequestOf<"satisfy"> => ({
  kind: "satisfy",
  statement: "a refund is requested",
  evidence: EVIDENCE,
  ...extra,
});

async function channels() {
  const g = await startGeminiDouble(knowledge, { apiKey: KEY });
  const o = await startOpenAiDouble(knowledge, { apiKey: KEY });
  const a = await startOpenAiDouble(knowledge, { apiKey: KEY });
  const v = await startOpenAiDouble(knowledge, { server: "vllm", apiKey: KEY });
  doubles.push(g, o, a, v);
  return [
    { name: "gemini", double: g, channel: gemini({ apiKey: KEY, baseUrl: g.baseUrl, retry: fastRetry }) },
    {
      name: "openai",
      double: o,
      channel: openai({ apiKey: KEY, baseURL: `${o.baseUrl}/v1`, server: "openai", retry: fastRetry }),
    },
    {
      name: "azure",
      double: a,
      channel: azureOpenai({ apiKey: KEY, endpoint: `${a.baseUrl}/`, deployment: "vision-prod", retry: fastRetry }),
    },
    {
      name: "vllm",
      double: v,
      channel: openai({ baseURL: `${v.baseUrl}/v1`, apiKey: KEY, retry: fastRetry }),
    },
  ];
}

test("every provider sends the statement and evidence with a probability schema and returns the double's answer", async () => {
  for (const { name, double, channel } of await channels()) {
    const answer = (await channel.request(request(), { signal: noAbort() })) as SatisfyAnswer;
    expect({ name, probability: answer.probability }).toEqual({ name, probability: 0.94 });
    expect(answer.model).toMatch(/^double:(gemini|openai)-wire\//);
    const sent = double.received[0]!;
    expect(sent.kind).toBe("satisfy");
    expect(sent.userText).toBe("a refund is requested");
    // Escaped on the wire, read back whole: user text can never close the block.
    expect(sent.snapshot).toBe(EVIDENCE);
    expect(sent.images).toHaveLength(0);
    expect(JSON.stringify(sent.body)).toContain('"probability"');
    // Azure refuses minimum/maximum in a schema; none are sent.
    expect(JSON.stringify(sent.body)).not.toMatch(/"minimum"|"maximum"/);
  }
});

test("an image and context go with the request when given", async () => {
  for (const { double, channel } of await channels()) {
    const answer = await channel.request(request({ screen, context: "order numbers vary" }), { signal: noAbort() });
    expect(answer.reason).toMatch(/and a \d+x\d+ image/);
    expect(double.received[0]!.images.map((i) => i.name)).toEqual(["screen"]);
    expect(double.received[0]!.text).toContain("<context>order numbers vary</context>");
  }
});

test("a probability outside 0-1 is a malformed answer", async () => {
  const g = await startGeminiDouble({ satisfy: () => ({ probability: 1.5 }) }, { apiKey: KEY });
  doubles.push(g);
  const channel = gemini({ apiKey: KEY, baseUrl: g.baseUrl, retry: fastRetry });
  await expect(channel.request(request(), { signal: noAbort() })).rejects.toMatchObject({ code: "ai-answer" });
});

describe("ocr() on satisfy", () => {
  const channel = ocr();
  const ask = (statement: string) => channel.request(request({ statement }), { signal: noAbort() });

  test("decides statements about quoted text from the evidence", async () => {
    await expect(ask('contains "Refund requested"')).resolves.toMatchObject({
      probability: 1,
      model: "ocr:paddle-ppocrv4",
    });
    await expect(ask('the status shows "refund  REQUESTED"')).resolves.toMatchObject({ probability: 1 });
    await expect(ask('shows "Refund approved"')).resolves.toMatchObject({ probability: 0 });
    await expect(ask('does not show "Error" and shows "Refund requested"')).resolves.toMatchObject({ probability: 1 });
    await expect(ask('doesn\'t show "Refund requested"')).resolves.toMatchObject({ probability: 0 });
  });

  test("refuses any other statement, saying which it decides", async () => {
    await expect(ask("the customer is requesting a refund")).rejects.toThrow(
      /decides only statements about quoted text/,
    );
    await expect(ask('the "Refund" button is green')).rejects.toMatchObject({ code: "input" });
  });

  test("sends what it refuses to its fallback", async () => {
    const o = await startOpenAiDouble(knowledge, { apiKey: KEY });
    doubles.push(o);
    const fallback = openai({ apiKey: KEY, baseURL: `${o.baseUrl}/v1`, server: "openai", retry: fastRetry });
    const answer = await ocr({ fallback }).request(request(), { signal: noAbort() });
    expect(answer.model).toMatch(/^double:openai-wire\//);
  });
});
