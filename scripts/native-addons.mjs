// The native addons tapshot and its tests load, on the Node running this: sharp (libvips) decodes a PNG it made and
// onnxruntime-node (the local OCR engine's runtime) lists its backends through its binding. Run by
// scripts/node-smoke.sh on every tested Node line; exits non-zero, saying which addon failed, when one does not load.
import process, { stdout, stderr, version } from "node:process";

async function sharpWorks() {
  const { default: sharp } = await import("sharp");
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#1a73e8" } })
    .png()
    .toBuffer();
  const raw = await sharp(png).raw().toBuffer();
  if (raw.length !== 12 || raw[2] !== 0xe8) throw new Error(`decoded ${raw.length} bytes, not the 2x2 RGB it encoded`);
  return `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`;
}

async function onnxruntimeWorks() {
  const { default: ort } = await import("onnxruntime-node");
  const backends = ort.listSupportedBackends().map((backend) => backend.name);
  if (!backends.includes("cpu")) throw new Error(`no cpu backend among ${backends.join(", ")}`);
  return `onnxruntime-node ${ort.env.versions.node}`;
}

const loaded = [];
for (const [name, check] of [
  ["sharp", sharpWorks],
  ["onnxruntime-node", onnxruntimeWorks],
]) {
  try {
    loaded.push(await check());
  } catch (error) {
    stderr.write(`Node ${version}: ${name} does not work: ${error instanceof Error ? error.message : error}\n`);
    process.exitCode = 1;
  }
}
if (!process.exitCode) stdout.write(`Node ${version}: native addons load: ${loaded.join(", ")}\n`);
