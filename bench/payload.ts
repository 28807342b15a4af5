/**
 * Benchmark 4, model payload: the image bytes and sizes the real providers put on the wire
 * for one `locate` and one `judge` (no references: the first device) of a 1179x2556
 * screenshot, as the wire doubles received them, against the raw PNG's bytes. Budget: the
 * images of a call <= 20% of the raw PNG. Bytes are deterministic, so one run suffices.
 *
 * Two screens: the demo cart as the rig renders it (flat colours and text, which PNG packs
 * tightly: the hard case for this ratio), and the same cart with a photo-like banner (blurred
 * noise) over its upper half, as shops and feeds show.
 */
import sharp from "sharp";
import type { AiChannel, AiImage } from "tapshot/runner";
import { gemini, openai } from "tapshot/providers";
import { startGeminiDouble, startOpenAiDouble, type Knowledge, type WireDouble } from "../rig/model-doubles/index.js";
import { loadScreen } from "./screens.js";
import { fromMedians, type Figure } from "./stats.js";

const KEY = "bench-key-not-a-secret";

/** The cart with a 1179x1100 photo-like banner (blurred noise) below the status bar. */
async function withPhoto(png: Buffer): Promise<Buffer> {
  const [width, height] = [1179, 1100];
  // Seeded noise (xorshift32), so the photo and its byte counts are the same every run.
  const noise = Buffer.alloc(width * height * 3);
  let state = 0x9e3779b9;
  for (let i = 0; i < noise.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    noise[i] = 60 + ((state >>> 0) % 136);
  }
  const photo = await sharp(noise, { raw: { width, height, channels: 3 } })
    .blur(2)
    .png()
    .toBuffer();
  return sharp(png)
    .composite([{ input: photo, top: 141, left: 0 }])
    .png()
    .toBuffer();
}

export async function benchPayload(): Promise<Figure[]> {
  const cart = await loadScreen("cart");
  const screens = [
    { name: "cart", png: cart.png, kinds: ["locate", "judge"] as const },
    { name: "cart + photo", png: await withPhoto(cart.png), kinds: ["locate"] as const },
  ];
  const box = cart.buttons["checkout-button"]!;
  const size = { width: 1179, height: 2556 };
  const knowledge: Knowledge = {
    locate(_target, frame) {
      const s = frame.width / size.width;
      return { box: { x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s } };
    },
    judge: () => ({ accept: true, reason: "double: accepted" }),
  };
  const providers: { name: string; start: () => Promise<WireDouble>; channel: (d: WireDouble) => AiChannel }[] = [
    {
      name: "gemini",
      start: () => startGeminiDouble(knowledge),
      channel: (d) => gemini({ apiKey: KEY, baseUrl: d.baseUrl }),
    },
    {
      name: "openai",
      start: () => startOpenAiDouble(knowledge),
      channel: (d) => openai({ apiKey: KEY, baseURL: `${d.baseUrl}/v1`, server: "openai" }),
    },
  ];

  const figures: Figure[] = [];
  const signal = new AbortController().signal;
  for (const { name, png, kinds } of screens) {
    const screen: AiImage = { mimeType: "image/png", data: png.toString("base64"), ...size };
    for (const provider of providers) {
      for (const kind of kinds) {
        const double = await provider.start();
        try {
          const channel = provider.channel(double);
          await channel.request(
            kind === "locate"
              ? { kind, screen, prompt: "the checkout button" }
              : { kind, screen, prompt: "the cart with 2 items", references: [] },
            { signal },
          );
          const images = double.received.flatMap((r) => r.images);
          const imageBytes = images.reduce((sum, i) => sum + i.bytes.length, 0);
          const bodyBytes = double.requests.reduce<number>((sum, b) => sum + JSON.stringify(b).length, 0);
          figures.push(
            fromMedians(
              `${name}, ${provider.name} ${kind}: image bytes`,
              "bytes",
              "raw PNG",
              imageBytes,
              png.length,
              1,
              {
                budget: 0.2,
                detail: {
                  requests: double.received.length,
                  images: images.map((i) => `${i.name} ${i.mimeType} ${i.width}x${i.height} ${i.bytes.length} B`),
                  requestBodyBytes: bodyBytes,
                  raw: `image/png 1179x2556 ${png.length} B`,
                },
              },
            ),
          );
        } finally {
          await double.close();
        }
      }
    }
  }
  return figures;
}
