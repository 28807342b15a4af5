/*
 * `ai.act`'s observation (docs/api.md "ai.act"): the visible, enabled, labelled controls of a
 * parsed page source, each with a role, its states, a label that never holds typed text, and an
 * identity a replay finds it by. A control without a unique identity is left out, never chosen by
 * position alone.
 */
import { MAX_CONTROLS, MAX_OBSERVATION_CHARS, type Control, type ControlRole } from "../model/contract.js";
import { DeviceError } from "../ground/errors.js";
import type { Rect } from "../ground/geometry.js";
import { CLASS_ATTRIBUTES, ID_ATTRIBUTES } from "./a11y-element.js";
import type { Platform } from "./description.js";
import { progressIndicator } from "./element-queries.js";
import type { PageNode } from "./page-source-parse.js";
import { typedValue } from "../ground/secrets.js";
import { scrubberOf } from "./typed-text.js";

/**
 * How a replay finds a control again: its id (`resource-id`, XCUITest `name`) when no other
 * observed control shares it, else its label and class with its ordinal among the controls of the
 * same label and class (0 for the first in document order).
 */
export interface ControlIdentity {
  id?: string;
  label?: string;
  cls?: string;
  ordinal?: number;
}

/** One observed control: what the model sees, and what tapshot keeps to act on it. */
export interface ObservedControl {
  control: Control;
  identity: ControlIdentity;
  /** In screenshot pixels. */
  bounds: Rect;
}

/** One observation of the screen. */
export interface Observation {
  controls: ObservedControl[];
  /** A busy control on screen (a ProgressBar, an ActivityIndicator), described; `undefined` when none. */
  busy: string | undefined;
}

/** What the observation compares fields with: the supplied values and the fields filled in this call. */
export interface ObserveContext {
  platform: Platform;
  values: Readonly<Record<string, string>>;
  /** Identity keys of fields this call filled, with the value name (a password field shows only dots). */
  filled: ReadonlyMap<string, string>;
}

/** Android classes by role (UiAutomator2's `class` is the node's accessibility class name). */
const ANDROID_ROLES: [RegExp, ControlRole][] = [
  [/(EditText|AutoCompleteTextView)$/, "field"],
  [/CheckBox$/, "checkbox"],
  [/(Switch|SwitchCompat|SwitchMaterial|ToggleButton)$/, "switch"],
  [/RadioButton$/, "radio"],
  [/Spinner$/, "select"],
  [/CheckedTextView$/, "option"],
  [/(Button|ImageButton)$/, "button"],
  [/(ScrollView|RecyclerView|ListView|GridView)$/, "scrollable"],
];
/** XCUITest element types by role. */
const IOS_ROLES: [RegExp, ControlRole][] = [
  [/^XCUIElementType(TextField|SecureTextField|SearchField|TextView)$/, "field"],
  [/^XCUIElementTypeCheckBox$/, "checkbox"],
  [/^XCUIElementTypeSwitch$/, "switch"],
  [/^XCUIElementTypeRadioButton$/, "radio"],
  [/^XCUIElementType(PickerWheel|PopUpButton)$/, "select"],
  [/^XCUIElementTypeMenuItem$/, "option"],
  [/^XCUIElementType(Button|Cell)$/, "button"],
  [/^XCUIElementTypeLink$/, "link"],
  [/^XCUIElementType(ScrollView|Table|CollectionView)$/, "scrollable"],
];

/** The control's role, or `undefined` for an element that is no control (a label, a layout). */
export function roleOf(node: PageNode, platform: Platform): ControlRole | undefined {
  const cls = node.attributes[CLASS_ATTRIBUTES[platform]] ?? "";
  const table = platform === "android" ? ANDROID_ROLES : IOS_ROLES;
  const role = table.find(([pattern]) => pattern.test(cls))?.[1];
  if (platform === "android") {
    if (role === "scrollable" || node.traits.scrollable === "true") return "scrollable";
    if (!role && node.traits.checkable === "true") return "checkbox";
    // A clickable text is a link; any other clickable view acts as a button.
    if (!role && node.traits.clickable === "true") return /TextView$/.test(cls) ? "link" : "button";
  }
  return role;
}

/** The short form of an Android resource id (`com.shop:id/email` -> `email`). */
function shortId(id: string | undefined): string | undefined {
  return id?.replace(/^.*:id\//, "");
}

/**
 * The text a field holds: Android's `text` and iOS's `value` are what was typed (UiAutomator2
 * serves the hint as `text` of an empty EditText on some versions; XCUITest serves the placeholder
 * as the `value` of an empty field), never part of a label.
 */
function typedText(node: PageNode, platform: Platform): string {
  const typed = platform === "android" ? node.traits.text : node.traits.value;
  const placeholder = platform === "android" ? node.traits.hint : node.traits.placeholderValue;
  return typed === undefined || typed === placeholder ? "" : typed;
}

/** The label: visible text, content description or accessibility label, hint, short id; never typed text. */
function labelOf(node: PageNode, role: ControlRole, platform: Platform): string {
  const a = node.attributes;
  const id = a[ID_ATTRIBUTES[platform]];
  // A spinner's own text is the option chosen, not its name: named by its description first, the choice after.
  const first = platform === "android" ? (role === "field" || role === "select" ? undefined : a.text) : a.label;
  const parts =
    platform === "android"
      ? [first, a["content-desc"], node.traits.hint, shortId(id)]
      : [first, node.traits.placeholderValue, id, role === "field" || role === "switch" ? undefined : a.value];
  const label = (parts.find((p) => p !== undefined && p.trim() !== "") ?? "").trim();
  const chosen = platform === "android" && role === "select" ? a.text?.trim() : undefined;
  return chosen && label && !label.includes(chosen) ? `${label}: ${chosen}` : label || (chosen ?? "");
}

/** Whether a checkbox, switch or radio is on: UiAutomator2's `checked`, XCUITest's `value` "1". */
function checkedOf(node: PageNode, platform: Platform): boolean | undefined {
  if (platform === "android") return node.states.checked === undefined ? undefined : node.states.checked === "true";
  const value = node.traits.value;
  return value === "1" ? true : value === "0" ? false : undefined;
}

/** The key a record and the filled-fields map name an identity by. */
export function identityKey(identity: ControlIdentity): string {
  return identity.id !== undefined
    ? `id:${identity.id}`
    : `label:${identity.cls ?? ""}:${identity.label ?? ""}#${identity.ordinal ?? 0}`;
}

/** `(empty)`, the name of the supplied value the field equals, or `(other text)`. */
function holdsOf(node: PageNode, key: string, context: ObserveContext): string {
  const filled = context.filled.get(key);
  if (filled !== undefined) return filled;
  const typed = typedText(node, context.platform);
  if (typed === "") return "(empty)";
  return Object.keys(context.values).find((name) => context.values[name] === typed) ?? "(other text)";
}

interface Candidate {
  node: PageNode;
  role: ControlRole;
  label: string;
  id: string | undefined;
  cls: string;
}

/** Candidates whose id no other candidate shares keep it as their identity; the rest go by label and class. */
function identities(candidates: Candidate[]): (ControlIdentity | undefined)[] {
  const count = (key: (c: Candidate) => string) => {
    const counts = new Map<string, number>();
    for (const c of candidates) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
    return counts;
  };
  const ids = count((c) => c.id ?? "");
  const seen = new Map<string, number>();
  return candidates.map((c) => {
    if (c.id !== undefined && ids.get(c.id) === 1) return { id: c.id };
    if (!c.label) return undefined;
    const key = `${c.cls}\n${c.label}`;
    const ordinal = seen.get(key) ?? 0;
    seen.set(key, ordinal + 1);
    return { label: c.label, cls: c.cls, ordinal };
  });
}

/**
 * The controls of a parsed page source, ids `c1..cN` in document order. Fails with a DeviceError
 * when the screen has more than {@link MAX_CONTROLS} controls or more than
 * {@link MAX_OBSERVATION_CHARS} characters of labels and options.
 */
export function observeControls(nodes: PageNode[], context: ObserveContext): Observation {
  const { platform } = context;
  const candidates: Candidate[] = [];
  for (const node of nodes) {
    if (node.states.enabled === "false") continue;
    const role = roleOf(node, platform);
    if (!role) continue;
    // A supplied value shown as text ("Signed in as qa@…") is named, never sent nor stored in an identity.
    const label = scrubValues(labelOf(node, role, platform), context.values);
    if (!label) continue;
    const id = node.attributes[ID_ATTRIBUTES[platform]];
    candidates.push({ node, role, label, id, cls: node.attributes[CLASS_ATTRIBUTES[platform]] ?? "" });
  }
  const ids = identities(candidates);
  const controls: ObservedControl[] = [];
  candidates.forEach((c, i) => {
    const identity = ids[i];
    if (!identity) return;
    controls.push(observed(c, identity, controls.length + 1, context));
  });
  checkLimits(controls);
  const busy = progressIndicator({ elements: nodes, ms: 0 }, platform);
  return { controls, busy };
}

function observed(c: Candidate, identity: ControlIdentity, n: number, context: ObserveContext): ObservedControl {
  const { node, role, label } = c;
  const control: Control = { id: `c${n}`, role, label: label.slice(0, 1000) };
  const checked =
    role === "checkbox" || role === "switch" || role === "radio" ? checkedOf(node, context.platform) : undefined;
  if (checked !== undefined) control.checked = checked;
  if (node.states.selected === "true") control.selected = true;
  if (node.states.focused === "true") control.focused = true;
  if (role === "field") control.holds = holdsOf(node, identityKey(identity), context);
  return { control, identity, bounds: node.bounds };
}

/** `text` with each supplied value's text replaced by `[value <name>]`. */
function scrubValues(text: string, values: Readonly<Record<string, string>>): string {
  const needles = Object.keys(values)
    .filter((name) => values[name])
    .sort((a, b) => values[b]!.length - values[a]!.length)
    .map((name) => ({ text: values[name]!, replacement: typedValue(name) }));
  return scrubberOf(needles).scrub(text);
}

function checkLimits(controls: ObservedControl[]): void {
  if (controls.length > MAX_CONTROLS) {
    throw new DeviceError(
      `ai.act observed ${controls.length} controls on this screen, over the ${MAX_CONTROLS} one observation may carry. ` +
        `Scroll or navigate to a screen with fewer controls first, or use tap for this step.`,
    );
  }
  const chars = controls.reduce((sum, { control }) => sum + control.label.length, 0);
  if (chars > MAX_OBSERVATION_CHARS) {
    throw new DeviceError(
      `ai.act observed ${chars} characters of control labels on this screen, over the ${MAX_OBSERVATION_CHARS} ` +
        `one observation may carry. Navigate to a smaller screen first, or use tap for this step.`,
    );
  }
}

/** The observed control with `identity`, or `undefined`. */
export function findControl(observation: Observation, identity: ControlIdentity): ObservedControl | undefined {
  const key = identityKey(identity);
  return observation.controls.find((c) => identityKey(c.identity) === key);
}

/** The centre of a rectangle, rounded: where a control is acted on. */
export function centreOf(r: Rect): { x: number; y: number } {
  return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
}
