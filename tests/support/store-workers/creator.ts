/**
 * `creator.ts <store> <writerId> <keys>`: after "go", try to create `create/0` ..
 * `create/<keys-1>` with `ifAbsent`. Reports the keys this worker won.
 */
import { openStore } from "./open-store.js";
import { makeValue } from "./values.js";
import { args, ready, report } from "./worker-io.js";

const [spec, writerText, keysText] = args;
const writer = Number(writerText);
const keys = Number(keysText);
const store = openStore(spec!);

await ready();
const won: number[] = [];
for (let k = 0; k < keys; k++) {
  if (await store.write(`create/${k}`, makeValue(writer, k, 4096), { ifAbsent: true })) won.push(k);
}
report({ writer, won });
