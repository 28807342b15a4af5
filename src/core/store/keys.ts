/** Slugs and keys of the storage layout (docs/design.md section 6). */
import { createHash } from "node:crypto";
import {
  applyTarget,
  type DescribedDevice,
  type DeviceDescription,
  type OsVersionKey,
  type Platform,
  type Target,
} from "../device/description.js";
import { ConfigError, StoreError } from "../ground/errors.js";

/** Lowercase ASCII words joined by `-`, at most `max` characters: `"Cart Page!"` -> `cart-page`. */
export function slugify(text: string, max = 60): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, max).replace(/-+$/, "") || "x";
}

/** The OS version part of store keys on each platform unless the target says otherwise (docs/storage.md). */
export const DEFAULT_OS_VERSION_KEY: Record<Platform, OsVersionKey> = { ios: "major.minor", android: "major" };

/**
 * The OS version as store keys use it: `17.5.1` -> `17.5` for `major.minor`, `8.1.0` -> `8` for
 * `major`. A version that does not start with a number (`Baklava`) is kept whole.
 */
export function osVersionInKey(osVersion: string, precision: OsVersionKey): string {
  const numbers = /^\s*(\d+)(?:\.(\d+))?/.exec(osVersion);
  if (precision === "full" || !numbers) return osVersion;
  return precision === "major" ? numbers[1]! : `${numbers[1]}.${numbers[2] ?? "0"}`;
}

/** What a device slug is made of. */
export type SlugParts = Pick<DeviceDescription, "model" | "osVersion"> & {
  orientation?: DeviceDescription["orientation"];
};

/**
 * `google-pixel-7_14`, `iphone-15-pro_17.5`: model slug and OS version, cut to `precision` (the
 * full version when not given). A landscape screen gets `_landscape` (`google-pixel-7_14_landscape`):
 * its layout differs, so its taps and baselines are stored apart instead of replacing the portrait
 * ones on every rotation.
 */
export function deviceSlug(device: SlugParts, precision: OsVersionKey = "full"): string {
  const os =
    osVersionInKey(device.osVersion, precision)
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, "-")
      .replace(/^-+|-+$/g, "") || "x";
  return `${slugify(device.model)}_${os}${device.orientation === "landscape" ? "_landscape" : ""}`;
}

/** The device slug of a call and the slugs older tapshot versions gave the same device. */
export interface DeviceSlugs {
  slug: string;
  /** Slugs under which values may already be stored: read when nothing is stored under `slug`. */
  former: string[];
}

/**
 * The slug of a described device with the run's target applied, and its former slugs: older
 * versions keyed the full OS version and, on real iPhones and iPads, the product type
 * (`iphone16-1_17.5.1`). A target's model replaces the adapter's former models.
 */
export function deviceSlugs(
  device: DescribedDevice,
  target: Target | undefined,
  precision: OsVersionKey | undefined,
): DeviceSlugs {
  const targeted = applyTarget(device, target);
  const slug = deviceSlug(targeted, precision ?? DEFAULT_OS_VERSION_KEY[targeted.platform]);
  const models = [targeted.model, ...(target?.model ? [] : (device.identity?.formerModels ?? []))];
  const former = [...new Set(models.map((model) => deviceSlug({ ...targeted, model })))].filter((s) => s !== slug);
  return { slug, former };
}

/** `key` (a tap or baseline key) with its device slug replaced by `device`. */
export function keyOnDevice(key: string, device: string): string {
  const parts = key.split("/");
  // taps|locators/<platform>/<device>/<file>, judgments/<platform>/<device>/<file>,
  // screenshots/<platform>/<name>/<device>, acts/<platform>/<goal>/<device>
  parts[parts[0] === "screenshots" || parts[0] === "acts" ? 3 : 2] = device;
  return parts.join("/");
}

/**
 * Ten hex digits of SHA-256 over the exact prompt and verify text: a stored tap belongs to both.
 * A scroll tap's hash also covers where it scrolls (`scroll`: its direction and region), so it
 * never shares a record with the plain tap of the same prompt (docs/storage.md).
 */
export function promptHash(prompt: string, verify: string | undefined, scroll?: object): string {
  return createHash("sha256")
    .update(JSON.stringify(scroll ? [prompt, verify ?? null, scroll] : [prompt, verify ?? null]))
    .digest("hex")
    .slice(0, 10);
}

/** Key (without extension) of a stored tap. */
export function tapKey(
  platform: Platform,
  device: string,
  prompt: string,
  verify: string | undefined,
  scroll?: object,
): string {
  return `taps/${platform}/${device}/${slugify(prompt, 48)}-${promptHash(prompt, verify, scroll)}`;
}

/**
 * Key (without extension) of a stored locator (`find`, docs/storage.md): a tap record of kind
 * `locator`, keyed as a tap without verify or scroll is, in a folder of its own.
 */
export function locatorKey(platform: Platform, device: string, description: string): string {
  return `locators/${platform}/${device}/${slugify(description, 48)}-${promptHash(description, undefined)}`;
}

/**
 * Key (without extension) of a stored judgment (docs/storage.md): the statement's slug, ten hex digits
 * of SHA-256 over the statement and context, and the first twelve of the evidence's hash.
 */
export function judgmentKey(
  platform: Platform,
  device: string,
  judged: { statement: string; context: string | undefined; evidenceHash: string },
): string {
  const statementHash = createHash("sha256")
    .update(JSON.stringify([judged.statement, judged.context ?? null]))
    .digest("hex")
    .slice(0, 10);
  return `judgments/${platform}/${device}/${slugify(judged.statement, 40)}-${statementHash}-${judged.evidenceHash.slice(0, 12)}`;
}

/** Key (without extension) of a stored baseline. */
export function baselineKey(platform: Platform, name: string, device: string): string {
  return `screenshots/${platform}/${name}/${device}`;
}

/** Folder holding the baselines of one name on one platform, one per device. */
export function baselineFolder(platform: Platform, name: string): string {
  return `screenshots/${platform}/${name}`;
}

/** The longest baseline name: it is a folder name in every checkout. */
export const MAX_BASELINE_NAME_LENGTH = 100;

/** Names Windows reserves for devices, with or without an extension (`con`, `nul.png`, `com1`). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/;

/**
 * Why `name` cannot be a baseline folder that is the same on every checkout, or `undefined`.
 * Names are lower case because macOS and Windows checkouts ignore case (`Cart-Page` and
 * `cart-page` would be one folder there, two on Linux); they start with a letter or digit, so
 * no name is a hidden folder or tapshot's own `.locks`; Windows forbids its device names and
 * drops trailing dots.
 */
export function baselineNameProblem(name: string): string | undefined {
  if (!/^[a-z0-9._-]+$/.test(name)) {
    return /^[A-Za-z0-9._-]+$/.test(name)
      ? "it has upper-case letters, and macOS and Windows checkouts ignore case, so use lower case only"
      : 'it may hold only lower-case letters, digits, ".", "_" and "-"';
  }
  if (name.length > MAX_BASELINE_NAME_LENGTH) return `it is longer than ${MAX_BASELINE_NAME_LENGTH} characters`;
  if (!/^[a-z0-9]/.test(name)) return "it must start with a letter or digit (names starting with . are reserved)";
  if (name.endsWith(".")) return "it ends with a dot, which Windows checkouts drop";
  if (WINDOWS_RESERVED.test(name)) return "Windows reserves it for a device";
  return undefined;
}

/** A valid baseline name to suggest for `name`. */
export function suggestBaselineName(name: string): string {
  const slug = slugify(name);
  return baselineNameProblem(slug) ? `${slug}-screen` : slug;
}

/** The `/`-separated parts of a store key; a StoreError for an empty key or one with `.`/`..`/empty segments. */
export function storeKeyParts(key: string): string[] {
  const parts = key.split("/");
  if (!key || parts.some((p) => p === "" || p === "." || p === "..")) {
    throw new StoreError(`Invalid store key "${key}": use a relative path without "." or ".." segments.`);
  }
  return parts;
}

/** Where a store keeps the lock of `key`: one flat name per key under `.locks/`, never listed as a value. */
export function lockKey(key: string): string {
  return `.locks/${key.replace(/\//g, "~")}.lock`;
}

/**
 * Key (without extension) of a stored act (docs/storage.md): `acts/<platform>/<slug>-<hash>/<device>`,
 * the hash over the goal and the sorted value names (never the values).
 */
export function actKey(platform: Platform, device: string, goal: string, valueNames: readonly string[]): string {
  const hash = createHash("sha256")
    .update(JSON.stringify([goal, [...valueNames].sort()]))
    .digest("hex")
    .slice(0, 10);
  return `acts/${platform}/${slugify(goal, 48)}-${hash}/${device}`;
}

/** The record a key belongs to: `<key>.json`, `<key>.png` and `<key>.previous.png` are one record. */
export function recordKeyOf(key: string): string {
  return key.replace(/(\.previous\.png|\.png|\.json)$/, "");
}

/** The longest project name: it is a folder name in every store. */
export const MAX_PROJECT_LENGTH = 64;

/** The form a project name takes, for errors. */
export const PROJECT_FORM = `1-${MAX_PROJECT_LENGTH} lower-case letters, digits, "-" or "_", starting with a letter or digit, and no name Windows reserves for a device such as "con" or "com1" (e.g. "shop-team")`;

/**
 * Why `name` cannot be a project, or `undefined`. A project is one folder of the store
 * (`_ai_/projects/<project>/`), so it can never name a path outside its own: no separators, no
 * dots, no upper case (macOS and Windows checkouts ignore case).
 */
export function projectProblem(name: string): string | undefined {
  if (name === "") return "it is empty";
  if (name.includes("/") || name.includes("\\")) return "it holds a path separator";
  if (name.includes("..")) return 'it holds ".."';
  if (name.length > MAX_PROJECT_LENGTH) return `it is longer than ${MAX_PROJECT_LENGTH} characters`;
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) return "it is not a slug";
  if (WINDOWS_RESERVED.test(name))
    return "Windows reserves it for a device, so a Windows checkout cannot hold its folder";
  return undefined;
}

/** `name` when it is a valid project, else a ConfigError naming `what` and the allowed form. */
export function checkProject(name: unknown, what: string): string {
  const problem = typeof name === "string" ? projectProblem(name) : "it is not a string";
  if (problem === undefined) return name as string;
  throw new ConfigError(`${what} ${JSON.stringify(name)} is not a project name: ${problem}. Use ${PROJECT_FORM}.`);
}

/** The longest app folder name: a folder name in every checkout. */
export const MAX_APP_FOLDER_LENGTH = 100;
/** Hex digits of the whole identity's hash that tell apart identities whose folders would otherwise be one. */
const APP_HASH_LENGTH = 10;

/**
 * The app part of store keys: an app identity (`com.example.shop`, `com.apple.Preferences`, a
 * browser session's host `127.0.0.1`) in lower case, with anything but letters, digits, `.`, `_`
 * and `-` replaced by `-`; no leading or trailing dot or dash, so it is never `.`, `..` or hidden.
 * Where that is not a folder of its own (longer than {@link MAX_APP_FOLDER_LENGTH}, nothing left,
 * a Windows device name) a hash of the whole identity tells it apart, the same on every checkout:
 * `<first 89 characters>-<hash>`, `app-<hash>`, `con-<hash>`. `undefined` for a blank identity.
 */
export function appSlug(identity: string): string | undefined {
  const trimmed = identity.trim();
  if (!trimmed) return undefined;
  const slug = trimmed
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.-]+|[.-]+$/g, "");
  const hash = () => createHash("sha256").update(trimmed).digest("hex").slice(0, APP_HASH_LENGTH);
  if (!slug) return `app-${hash()}`;
  if (slug.length > MAX_APP_FOLDER_LENGTH) {
    const head = slug.slice(0, MAX_APP_FOLDER_LENGTH - APP_HASH_LENGTH - 1).replace(/[.-]+$/, "");
    return `${head}-${hash()}`;
  }
  return WINDOWS_RESERVED.test(slug) ? `${slug}-${hash()}` : slug;
}

/** Whose values a store view holds: a project (optional) and the app under test (when known). */
export interface StoreScope {
  project?: string | undefined;
  app?: string | undefined;
}

/** The folder of a scope under `_ai_/`: `projects/<project>/apps/<app>`, `apps/<app>`, or `""` (the old layout). */
export function scopeFolder({ project, app }: StoreScope): string {
  return [project ? `projects/${project}` : "", app ? `apps/${app}` : ""].filter(Boolean).join("/");
}

/**
 * The folders a scope reads, its own first: then, with `readOldLayout`, the folder of the same app
 * without a project and the old layout of versions that kept no app or project (docs/storage.md).
 */
export function scopeFolders(scope: StoreScope, { readOldLayout }: { readOldLayout: boolean }): string[] {
  const own = scopeFolder(scope);
  if (!readOldLayout) return [own];
  return [...new Set([own, scopeFolder({ app: scope.app }), ""])];
}

/** A store key split into its scope and the key within it (`taps/...`, `screenshots/...`). */
export interface ScopedKey extends StoreScope {
  /** The key within the scope, e.g. `taps/android/google-pixel-7_14/the-checkout-button-1a2b3c4d5e`. */
  inner: string;
}

/** Split `projects/<project>/apps/<app>/<key>` (each part optional) into its scope and inner key. */
export function parseScopedKey(key: string): ScopedKey {
  const match = /^(?:projects\/([^/]+)\/)?(?:apps\/([^/]+)\/)?(.*)$/s.exec(key)!;
  return {
    ...(match[1] ? { project: match[1] } : {}),
    ...(match[2] ? { app: match[2] } : {}),
    inner: match[3]!,
  };
}
