/** Serve the demo shop for a look in a browser: `npx tsx demo/app/serve.ts [port]`. Stops on Ctrl-C. */
import { startDemoServer } from "./server.js";

const port = Number(process.argv[2] ?? 0);
const server = await startDemoServer({ port });
console.log(`Demo shop on ${server.url}/cart (variants: ?variant=default|redesign|regression, ?seed=<n>)`);
process.once("SIGINT", () => void server.stop().then(() => process.exit(0)));
