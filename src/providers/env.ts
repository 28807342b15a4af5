/** PLACEHOLDER (issue 5): build a channel from TAPSHOT_PROVIDER and the providers' key variables. */
import type { AiChannel } from "../core/contract.js";

export function channelFromEnv(_env: NodeJS.ProcessEnv): AiChannel | undefined {
  return undefined;
}
