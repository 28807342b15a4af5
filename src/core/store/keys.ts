/** Slugs and keys of the storage layout (docs/design.md section 6). */
import { createHash } from "node:crypto";
import type { DeviceDescription, Platform } from "../device.js";
import { StoreError } from "../errors.js";

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

/**
 * `google-pixel-7_14`, `iphone-15-pro_17.5`: model slug and OS version. A landscape screen gets
 * `_landscape` (`google-pixel-7_14_landscape`): its layout differs, so its taps and baselines are
 * stored apart instead of replacing the portrait ones on every rotation.
 */
export function deviceSlug(
  device: Pick<DeviceDescription, "model" | "osVersion"> & { orientation?: DeviceDescription["orientation"] },
): string {
  const os =
    device.osVersion
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, "-")
      .replace(/^-+|-+$/g, "") || "x";
  return `${slugify(device.model)}_${os}${device.orientation === "landscape" ? "_landscape" : ""}`;
}

/** Ten hex digits of SHA-256 over the exact prompt and verify text: a stored tap belongs to both. */
export function promptHash(prompt: string, verify: string | undefined): string {
  return createHash("sha256")
    .update(JSON.stringify([prompt, verify ?? null]))
    .digest("hex")
    .slice(0, 10);
}

/** Key (without extension) of a stored tap. */
export function tapKey(platform: Platform, device: string, prompt: string, verify: string | undefined): string {
  return `taps/${platform}/${device}/${slugify(prompt, 48)}-${promptHash(prompt, verify)}`;
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
