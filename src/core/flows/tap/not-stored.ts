/**
 * The error of a tap with nothing stored in mode `replay`. The verify text is part of a tap's
 * key (docs/storage.md), so a tap stored under the same prompt with another `verify` is not used:
 * the error names that verify text and the two ways out.
 */
import { NotStoredError, withArticle } from "../../ground/errors.js";
import type { Call } from "../../run/call.js";
import { slugify } from "../../store/keys.js";
import { parseStoredJson } from "../../store/record-io.js";
import { TapRecordSchema } from "../../store/tap-record.js";
import type { TapParams } from "./tap-params.js";

/** The `NotStoredError` for `key`, naming a stored tap of the same prompt with another verify text. */
export async function tapNotStored(
  call: Call,
  key: string,
  params: TapParams,
  { transfer }: { transfer: string },
): Promise<NotStoredError> {
  const { prompt, verify } = params;
  const d = call.device;
  const where = `${call.config.store.location}/${key}.json`;
  const missing = `No stored tap for "${prompt}"${verify ? ` with verify "${verify}"` : ""} on ${call.deviceSlug} (${where}).`;
  const learn =
    `by running this flow once on ${withArticle(d.model)} (${d.platform} ${d.osVersion}) with mode "auto" ` +
    `and a model configured, then commit the new files under _ai_/.`;
  const other = await otherVerify(call, key, params);
  if (other === undefined)
    return new NotStoredError(`${missing} mode is "replay", so the model is not asked. Learn it ${learn}${transfer}`);
  const stored = other.verify === null ? "with no verify" : `with verify "${other.verify}"`;
  const pass = other.verify === null ? "drop the verify option" : `pass { verify: ${JSON.stringify(other.verify)} }`;
  return new NotStoredError(
    `${missing} A tap for this prompt is stored ${stored} (${call.config.store.location}/${other.key}.json), and the ` +
      `verify text is part of what is stored. Either ${pass} to replay that one, or learn this one ${learn}${transfer}`,
  );
}

/** A tap of the same prompt (and scroll) on this device stored with another verify text, if any. */
async function otherVerify(
  call: Call,
  key: string,
  { prompt, verify, scroll }: TapParams,
): Promise<{ key: string; verify: string | null } | undefined> {
  const folder = key.slice(0, key.lastIndexOf("/"));
  const sameSlug = `${folder}/${slugify(prompt, 48)}-`;
  for (const file of await call.config.store.list(folder)) {
    if (!file.startsWith(sameSlug) || !file.endsWith(".json") || file === `${key}.json`) continue;
    const parsed = TapRecordSchema.safeParse(parseStoredJson(await call.config.store.read(file)));
    if (!parsed.success) continue;
    const record = parsed.data;
    if (record.prompt !== prompt || record.verify === (verify ?? null)) continue;
    if ((record.scroll === undefined) !== (scroll === undefined)) continue;
    return { key: file.slice(0, -".json".length), verify: record.verify };
  }
  return undefined;
}
