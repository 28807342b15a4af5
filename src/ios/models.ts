/**
 * iPhone and iPad model names by lockdown `ProductType` (`iPhone16,1` -> "iPhone 15 Pro"), the
 * only model identifier a real device reports (docs/devices.md, "Identity"). Simulators report
 * the name the user typed (`deviceName`), which Xcode's device types spell like these names; both
 * end up as one name, so a value learned on a simulator replays on the real phone.
 *
 * Source: DeviceKit's Source/Device.swift.gyb (github.com/devicekit/DeviceKit, commit 56b997e,
 * 2026-03), whose entries link Apple's tech-specs page for each model; the names are its "safe"
 * spellings (ASCII: "iPhone XR", not "iPhone Xʀ"). Add a row when Apple ships a model: an
 * unknown ProductType is kept as it is, with a note in the log naming this file.
 */
import { slugify } from "../core/store/keys.js";

const MODELS: ReadonlyArray<readonly [name: string, productTypes: readonly string[]]> = [
  ["iPhone 4", ["iPhone3,1", "iPhone3,2", "iPhone3,3"]],
  ["iPhone 4s", ["iPhone4,1"]],
  ["iPhone 5", ["iPhone5,1", "iPhone5,2"]],
  ["iPhone 5c", ["iPhone5,3", "iPhone5,4"]],
  ["iPhone 5s", ["iPhone6,1", "iPhone6,2"]],
  ["iPhone 6", ["iPhone7,2"]],
  ["iPhone 6 Plus", ["iPhone7,1"]],
  ["iPhone 6s", ["iPhone8,1"]],
  ["iPhone 6s Plus", ["iPhone8,2"]],
  ["iPhone 7", ["iPhone9,1", "iPhone9,3"]],
  ["iPhone 7 Plus", ["iPhone9,2", "iPhone9,4"]],
  ["iPhone SE", ["iPhone8,4"]],
  ["iPhone 8", ["iPhone10,1", "iPhone10,4"]],
  ["iPhone 8 Plus", ["iPhone10,2", "iPhone10,5"]],
  ["iPhone X", ["iPhone10,3", "iPhone10,6"]],
  ["iPhone XS", ["iPhone11,2"]],
  ["iPhone XS Max", ["iPhone11,4", "iPhone11,6"]],
  ["iPhone XR", ["iPhone11,8"]],
  ["iPhone 11", ["iPhone12,1"]],
  ["iPhone 11 Pro", ["iPhone12,3"]],
  ["iPhone 11 Pro Max", ["iPhone12,5"]],
  ["iPhone SE (2nd generation)", ["iPhone12,8"]],
  ["iPhone 12", ["iPhone13,2"]],
  ["iPhone 12 mini", ["iPhone13,1"]],
  ["iPhone 12 Pro", ["iPhone13,3"]],
  ["iPhone 12 Pro Max", ["iPhone13,4"]],
  ["iPhone 13", ["iPhone14,5"]],
  ["iPhone 13 mini", ["iPhone14,4"]],
  ["iPhone 13 Pro", ["iPhone14,2"]],
  ["iPhone 13 Pro Max", ["iPhone14,3"]],
  ["iPhone SE (3rd generation)", ["iPhone14,6"]],
  ["iPhone 14", ["iPhone14,7"]],
  ["iPhone 14 Plus", ["iPhone14,8"]],
  ["iPhone 14 Pro", ["iPhone15,2"]],
  ["iPhone 14 Pro Max", ["iPhone15,3"]],
  ["iPhone 15", ["iPhone15,4"]],
  ["iPhone 15 Plus", ["iPhone15,5"]],
  ["iPhone 15 Pro", ["iPhone16,1"]],
  ["iPhone 15 Pro Max", ["iPhone16,2"]],
  ["iPhone 16", ["iPhone17,3"]],
  ["iPhone 16 Plus", ["iPhone17,4"]],
  ["iPhone 16 Pro", ["iPhone17,1"]],
  ["iPhone 16 Pro Max", ["iPhone17,2"]],
  ["iPhone 16e", ["iPhone17,5"]],
  ["iPhone 17", ["iPhone18,3"]],
  ["iPhone 17 Pro", ["iPhone18,1"]],
  ["iPhone 17 Pro Max", ["iPhone18,2"]],
  ["iPhone Air", ["iPhone18,4"]],
  ["iPhone 17e", ["iPhone18,5"]],
  ["iPad 2", ["iPad2,1", "iPad2,2", "iPad2,3", "iPad2,4"]],
  ["iPad (3rd generation)", ["iPad3,1", "iPad3,2", "iPad3,3"]],
  ["iPad (4th generation)", ["iPad3,4", "iPad3,5", "iPad3,6"]],
  ["iPad Air", ["iPad4,1", "iPad4,2", "iPad4,3"]],
  ["iPad Air 2", ["iPad5,3", "iPad5,4"]],
  ["iPad (5th generation)", ["iPad6,11", "iPad6,12"]],
  ["iPad (6th generation)", ["iPad7,5", "iPad7,6"]],
  ["iPad Air (3rd generation)", ["iPad11,3", "iPad11,4"]],
  ["iPad (7th generation)", ["iPad7,11", "iPad7,12"]],
  ["iPad (8th generation)", ["iPad11,6", "iPad11,7"]],
  ["iPad (9th generation)", ["iPad12,1", "iPad12,2"]],
  ["iPad (10th generation)", ["iPad13,18", "iPad13,19"]],
  ["iPad (A16)", ["iPad15,7", "iPad15,8"]],
  ["iPad Air (4th generation)", ["iPad13,1", "iPad13,2"]],
  ["iPad Air (5th generation)", ["iPad13,16", "iPad13,17"]],
  ["iPad Air (11-inch) (M2)", ["iPad14,8", "iPad14,9"]],
  ["iPad Air (13-inch) (M2)", ["iPad14,10", "iPad14,11"]],
  ["iPad Air (11-inch) (M3)", ["iPad15,3", "iPad15,4"]],
  ["iPad Air (13-inch) (M3)", ["iPad15,5", "iPad15,6"]],
  ["iPad Air (11-inch) (M4)", ["iPad16,8", "iPad16,9"]],
  ["iPad Air (13-inch) (M4)", ["iPad16,10", "iPad16,11"]],
  ["iPad mini", ["iPad2,5", "iPad2,6", "iPad2,7"]],
  ["iPad mini 2", ["iPad4,4", "iPad4,5", "iPad4,6"]],
  ["iPad mini 3", ["iPad4,7", "iPad4,8", "iPad4,9"]],
  ["iPad mini 4", ["iPad5,1", "iPad5,2"]],
  ["iPad mini (5th generation)", ["iPad11,1", "iPad11,2"]],
  ["iPad mini (6th generation)", ["iPad14,1", "iPad14,2"]],
  ["iPad mini (A17 Pro)", ["iPad16,1", "iPad16,2"]],
  ["iPad Pro (9.7-inch)", ["iPad6,3", "iPad6,4"]],
  ["iPad Pro (12.9-inch)", ["iPad6,7", "iPad6,8"]],
  ["iPad Pro (12.9-inch) (2nd generation)", ["iPad7,1", "iPad7,2"]],
  ["iPad Pro (10.5-inch)", ["iPad7,3", "iPad7,4"]],
  ["iPad Pro (11-inch)", ["iPad8,1", "iPad8,2", "iPad8,3", "iPad8,4"]],
  ["iPad Pro (12.9-inch) (3rd generation)", ["iPad8,5", "iPad8,6", "iPad8,7", "iPad8,8"]],
  ["iPad Pro (11-inch) (2nd generation)", ["iPad8,9", "iPad8,10"]],
  ["iPad Pro (12.9-inch) (4th generation)", ["iPad8,11", "iPad8,12"]],
  ["iPad Pro (11-inch) (3rd generation)", ["iPad13,4", "iPad13,5", "iPad13,6", "iPad13,7"]],
  ["iPad Pro (12.9-inch) (5th generation)", ["iPad13,8", "iPad13,9", "iPad13,10", "iPad13,11"]],
  ["iPad Pro (11-inch) (4th generation)", ["iPad14,3", "iPad14,4"]],
  ["iPad Pro (12.9-inch) (6th generation)", ["iPad14,5", "iPad14,6"]],
  ["iPad Pro (11-inch) (M4)", ["iPad16,3", "iPad16,4"]],
  ["iPad Pro (13-inch) (M4)", ["iPad16,5", "iPad16,6"]],
  ["iPad Pro (11-inch) (M5)", ["iPad17,1", "iPad17,2"]],
  ["iPad Pro (13-inch) (M5)", ["iPad17,3", "iPad17,4"]],
];

const BY_PRODUCT_TYPE = new Map(MODELS.flatMap(([name, types]) => types.map((type) => [type, name] as const)));
const BY_SLUG = new Map(MODELS.map(([name]) => [slugify(name), name] as const));

/** The marketing name of a lockdown `ProductType`, or `undefined` when the table lacks it. */
export function modelOfProductType(productType: string): string | undefined {
  return BY_PRODUCT_TYPE.get(productType.trim());
}

/**
 * The table's spelling of a model name typed another way (`iphone 15 pro`, `iPad Pro 11-inch (M4)`
 * for "iPad Pro (11-inch) (M4)"): names are compared by their slug, so case, spaces and
 * parentheses do not matter. `undefined` for a name that is no model in the table.
 */
export function knownModelName(name: string): string | undefined {
  return BY_SLUG.get(slugify(name));
}

/**
 * Portrait status bar heights in points of iPhones without a home button, used only when the driver
 * reports none (docs/devices.md, "Insets"): they differ by model, from 44 pt (iPhone X) to 62 pt
 * (iPhone 16 Pro). Values: UIKit's status bar frame on each model as published with the screen
 * sizes of each generation (useyourloaf.com "iPhone screen sizes"). Home-button iPhones and iPads
 * have 20 pt; iPads without a home button 24 pt.
 */
const STATUS_BAR_PT: ReadonlyArray<readonly [points: number, models: readonly string[]]> = [
  [44, ["iPhone X", "iPhone XS", "iPhone XS Max", "iPhone 11 Pro", "iPhone 11 Pro Max"]],
  [48, ["iPhone XR", "iPhone 11"]],
  [50, ["iPhone 12 mini", "iPhone 13 mini"]],
  [
    47,
    [
      "iPhone 12",
      "iPhone 12 Pro",
      "iPhone 12 Pro Max",
      "iPhone 13",
      "iPhone 13 Pro",
      "iPhone 13 Pro Max",
      "iPhone 14",
      "iPhone 14 Plus",
      "iPhone 16e",
    ],
  ],
  [
    54,
    [
      "iPhone 14 Pro",
      "iPhone 14 Pro Max",
      "iPhone 15",
      "iPhone 15 Plus",
      "iPhone 15 Pro",
      "iPhone 15 Pro Max",
      "iPhone 16",
      "iPhone 16 Plus",
    ],
  ],
  [62, ["iPhone 16 Pro", "iPhone 16 Pro Max"]],
];

const STATUS_BAR_BY_SLUG = new Map(
  STATUS_BAR_PT.flatMap(([points, models]) => models.map((model) => [slugify(model), points] as const)),
);

/** The portrait status bar height of a model in the table, in points, or `undefined`. */
export function statusBarPointsOf(model: string): number | undefined {
  return STATUS_BAR_BY_SLUG.get(slugify(model));
}
