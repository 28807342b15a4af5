/**
 * `big-writer.ts <storageDir> <key> <size>`: write the key over and over with large values,
 * printing "writing <n>" before each write, until killed.
 */
import { FileStore } from "../../../src/core/store/file-store.js";
import { makeValue } from "./values.js";
import { args } from "./worker-io.js";

const [storageDir, key, sizeText] = args;
const size = Number(sizeText);
const store = new FileStore(storageDir!);

for (let n = 0; ; n++) {
  process.stdout.write(`writing ${n}\n`);
  await store.write(key!, makeValue(1, n, size));
}
