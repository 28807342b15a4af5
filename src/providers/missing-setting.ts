/**
 * A provider built without a setting it needs (a key, an endpoint): building it succeeds, so a
 * config file that names the provider loads in CI, where mode `replay` never asks a model; its
 * first model request fails with the ConfigError that says what to set.
 */
import type { AiChannel } from "../core/model/contract.js";
import { ConfigError } from "../core/ground/errors.js";

/** A channel whose every request fails with a ConfigError carrying `message`. */
export function missingSettingChannel(message: string): AiChannel {
  return {
    async request() {
      throw new ConfigError(message);
    },
  };
}
