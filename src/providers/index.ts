/** PLACEHOLDER (issue 5): `tapshot/providers`. */
export { channelFromEnv } from "./env.js";
