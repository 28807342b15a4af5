/**
 * Try `ocr()` by hand: locate each prompt on a PNG and print the answer and its time.
 * `npx tsx bench/ocr/locate.ts screen.png 'the "Checkout" button' 'the settings icon'`.
 */
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { ocr } from "tapshot/providers";

const png = await readFile(process.argv[2]!);
const { width, height } = await sharp(png).metadata();
const screen = { mimeType: "image/png" as const, data: png.toString("base64"), width: width!, height: height! };
const channel = ocr();
const signal = new AbortController().signal;
for (const prompt of process.argv.slice(3)) {
  const started = performance.now();
  const answer = await channel.request({ kind: "locate", screen, prompt }, { signal });
  console.log(`${Math.round(performance.now() - started)} ms  ${prompt}  =>  ${JSON.stringify(answer)}`);
}
