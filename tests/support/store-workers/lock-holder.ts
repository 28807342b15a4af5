/**
 * `lock-holder.ts <store> <key> <holdMs>`: take the lock `key`, print "locked", hold it
 * for `holdMs` (or until killed), release, print "released".
 */
import { openStore } from "./open-store.js";
import { args } from "./worker-io.js";

const [spec, key, holdText] = args;
const store = openStore(spec!);

const release = await store.lock(key!, { deadline: Date.now() + 60_000 });
process.stdout.write("locked\n");
await new Promise((resolve) => setTimeout(resolve, Number(holdText)));
await release();
process.stdout.write("released\n");
