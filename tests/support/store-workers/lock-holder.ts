/**
 * `lock-holder.ts <storageDir> <key> <holdMs>`: take the lock `key`, print "locked", hold it
 * for `holdMs` (or until killed), release, print "released".
 */
import { FileStore } from "../../../src/core/store/file-store.js";
import { args } from "./worker-io.js";

const [storageDir, key, holdText] = args;
const store = new FileStore(storageDir!);

const release = await store.lock(key!, { deadline: Date.now() + 60_000 });
process.stdout.write("locked\n");
await new Promise((resolve) => setTimeout(resolve, Number(holdText)));
await release();
process.stdout.write("released\n");
