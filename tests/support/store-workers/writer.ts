/**
 * `writer.ts <store> <key> <writerId> <count> <size>`: after "go", write the key
 * `count` times with this writer's values. Reports how many writes it made.
 */
import { openStore } from "./open-store.js";
import { makeValue } from "./values.js";
import { args, ready, report } from "./worker-io.js";

const [spec, key, writerText, countText, sizeText] = args;
const writer = Number(writerText);
const count = Number(countText);
const size = Number(sizeText);
const store = openStore(spec!);

await ready();
for (let n = 0; n < count; n++) await store.write(key!, makeValue(writer, n, size));
report({ writer, writes: count });
