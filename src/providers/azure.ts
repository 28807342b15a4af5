/* `azureOpenai()`: a channel to an Azure OpenAI deployment through the SDK's `AzureOpenAI` client. */
import type { AiChannel } from "../core/model/contract.js";
import { missingSettingChannel } from "./missing-setting.js";
import { chatCompletionsChannel, loadOpenAi, type ChatCompletionsOptions } from "./chat-completions.js";
import { registerSecret } from "../core/ground/secrets.js";
import { htmlGuardedFetch } from "./html-answer.js";
import { checkProviderOptions, checkServerUrl, AzureOpenAiOptionsSchema } from "./validate.js";

/**
 * The Azure OpenAI API version used when none is given: `"v1"`, Azure's versionless GA surface
 * (`<endpoint>/openai/v1/chat/completions`, the deployment as `model`), which serves every current
 * deployment, reasoning models (gpt-5*, o-series) included. A dated version (`"2025-04-01-preview"`)
 * uses the `/openai/deployments/<deployment>` path with `?api-version=`.
 */
export const DEFAULT_AZURE_API_VERSION = "v1";

/** Values of `apiVersion` that select the v1 surface; `"preview"` opts into its preview features. */
const V1_VERSIONS = new Set(["v1", "preview"]);

/** Azure's 400 for a deployment the dated version does not serve: "... enabled only for api versions X and later". */
const VERSION_TOO_OLD = /enabled only for api versions (\S+) and later/i;

/** Options of {@link azureOpenai}. */
export interface AzureOpenAiOptions extends ChatCompletionsOptions {
  /** The resource endpoint, e.g. `https://my-resource.openai.azure.com`. Default `$AZURE_OPENAI_ENDPOINT`. */
  endpoint?: string;
  /** The deployment name of a vision model. Default `$AZURE_OPENAI_DEPLOYMENT`. */
  deployment?: string;
  /**
   * API version: `"v1"` (Azure's versionless surface), `"preview"`, or a dated version such as
   * `"2025-04-01-preview"`. Default `$OPENAI_API_VERSION`, then {@link DEFAULT_AZURE_API_VERSION}.
   */
  apiVersion?: string;
  /** API key. Default `$AZURE_OPENAI_API_KEY`. Leave out when using `azureADTokenProvider`. */
  apiKey?: string;
  /** Microsoft Entra ID tokens instead of a key, e.g. `getBearerTokenProvider(credential, scope)` from @azure/identity. */
  azureADTokenProvider?: () => Promise<string>;
}

/**
 * A channel to an Azure OpenAI deployment over Chat Completions. Behaves like {@link openai}:
 * structured output, images with an explicit `detail`, refinement of `locate` on by default.
 */
export function azureOpenai(options: AzureOpenAiOptions = {}): AiChannel {
  checkProviderOptions("azureOpenai", AzureOpenAiOptionsSchema, options);
  const endpoint = options.endpoint ?? process.env.AZURE_OPENAI_ENDPOINT;
  const deployment = options.deployment ?? process.env.AZURE_OPENAI_DEPLOYMENT;
  const apiVersion = options.apiVersion ?? process.env.OPENAI_API_VERSION ?? DEFAULT_AZURE_API_VERSION;
  const apiKey = options.azureADTokenProvider ? undefined : (options.apiKey ?? process.env.AZURE_OPENAI_API_KEY);
  const missing = [
    !endpoint && "endpoint (or AZURE_OPENAI_ENDPOINT)",
    !deployment && "deployment (or AZURE_OPENAI_DEPLOYMENT)",
    !apiKey && !options.azureADTokenProvider && "apiKey (or AZURE_OPENAI_API_KEY) or azureADTokenProvider",
  ].filter(Boolean);
  // Built all the same: mode replay never asks, the first request says what to set.
  if (missing.length) return missingSettingChannel(`azureOpenai() is missing ${missing.join(", ")}.`);
  checkServerUrl("azureOpenai", options.endpoint ? "endpoint" : "AZURE_OPENAI_ENDPOINT", endpoint);
  registerSecret(apiKey);
  const tokenProvider = options.azureADTokenProvider;
  // Each token it fetches is redacted wherever tapshot prints or writes (src/core/ground/secrets.ts).
  const azureADTokenProvider =
    tokenProvider &&
    (async () => {
      const token = await tokenProvider();
      registerSecret(token);
      return token;
    });

  const base = endpoint!.replace(/\/+$/, "");
  const v1 = V1_VERSIONS.has(apiVersion);
  let client: ReturnType<typeof create> | undefined;
  const create = async () => {
    const { AzureOpenAI, OpenAI } = await loadOpenAi();
    if (v1) {
      // The v1 surface takes the plain OpenAI client: the deployment goes as `model`, the key or
      // the Entra token as a bearer token; `api-version` is only sent to opt into previews.
      return new OpenAI({
        baseURL: `${base}/openai/v1`,
        apiKey: azureADTokenProvider ?? apiKey,
        organization: null,
        project: null,
        maxRetries: 0,
        fetch: htmlGuardedFetch,
        ...(apiVersion === "preview" ? { defaultQuery: { "api-version": "preview" } } : {}),
      });
    }
    // baseURL rather than endpoint: the SDK would otherwise also read $OPENAI_BASE_URL and refuse both.
    return new AzureOpenAI({
      baseURL: `${base}/openai`,
      deployment,
      apiVersion,
      maxRetries: 0,
      fetch: htmlGuardedFetch,
      ...(azureADTokenProvider ? { azureADTokenProvider } : { apiKey }),
    });
  };
  return chatCompletionsChannel(
    {
      id: { provider: "azure-openai", model: deployment!, secrets: apiKey ? [apiKey] : [] },
      model: deployment!,
      server: "azure",
      client: () => (client ??= create()),
      fix(failure) {
        const needed = failure.status === 400 ? VERSION_TOO_OLD.exec(failure.detail)?.[1] : undefined;
        if (!needed) return undefined;
        return (
          `azureOpenai() sent api-version ${apiVersion}, which this deployment does not accept. ` +
          `Set the apiVersion option (or OPENAI_API_VERSION) to "v1", the default, or to ${needed} or later.`
        );
      },
    },
    options,
  );
}
