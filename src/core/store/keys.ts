/** Slugs and keys of the storage layout (docs/design.md section 6). */
import { createHash } from "node:crypto";
import type { DeviceDescription, Platform } from "../device.js";

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

/** A valid baseline name: letters, digits, `.`, `_`, `-`; not only dots (`.` and `..` are not folder names). */
export const BASELINE_NAME = /^(?!\.+$)[A-Za-z0-9._-]+$/;
