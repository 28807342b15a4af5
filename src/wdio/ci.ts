/** The mode the service sets: replay on CI (no model, no key), unless the options or TAPSHOT_MODE say otherwise. */
import type { Mode } from "../core/config/config.js";

/** Whether `CI` says this is a CI run (`CI=true`, `CI=1`; not empty, `0` or `false`). */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** The service's mode: the option; else `undefined` when TAPSHOT_MODE is set (it applies); else `replay` on CI. */
export function serviceMode(option: Mode | undefined, env: NodeJS.ProcessEnv): Mode | undefined {
  if (option) return option;
  if (env.TAPSHOT_MODE) return undefined;
  return isCi(env) ? "replay" : undefined;
}
