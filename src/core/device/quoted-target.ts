/*
 * The page source answers a prompt that names a quoted text and a kind of control (docs/api.md,
 * "Learned from the page source"): `the "Checkout" button`, `the "Email" field`, `the link
 * "Terms"`. When exactly one visible, enabled control of that kind on top of the screen says that
 * text, it is the element, and no model is asked. Anything less is left to the model.
 */
import { MAX_LOCATE_CONTROLS, type ControlRole, type LocateControl } from "../model/contract.js";
import { contains, type Rect } from "../ground/geometry.js";
import { TYPED_ATTRIBUTES } from "./a11y-element.js";
import { roleOf } from "./controls.js";
import type { Platform } from "./description.js";
import type { PageNode } from "./page-source-parse.js";

/** The kinds a prompt may name, as documented, and the control roles each stands for. */
export const TARGET_KINDS: Readonly<Record<string, readonly ControlRole[]>> = {
  button: ["button"],
  tab: ["button"],
  field: ["field"],
  input: ["field"],
  "text field": ["field"],
  "text box": ["field"],
  textbox: ["field"],
  "search field": ["field"],
  link: ["link"],
  switch: ["switch"],
  toggle: ["switch"],
  checkbox: ["checkbox", "switch"],
  "check box": ["checkbox", "switch"],
  "radio button": ["radio"],
  radio: ["radio"],
  dropdown: ["select"],
  picker: ["select"],
  option: ["option"],
  "menu item": ["option"],
};

/** What a prompt asks for when it has the documented form. */
export interface QuotedTarget {
  text: string;
  kind: string;
}

const KIND_WORDS = Object.keys(TARGET_KINDS)
  .sort((a, b) => b.length - a.length)
  .map((kind) => kind.replace(/ /g, "\\s+"))
  .join("|");
const ARTICLE = "(?:the\\s+|a\\s+|an\\s+)?";
const NAMING = "(?:\\s+(?:labelled|labeled|named|called|saying|that\\s+says))?";
const QUOTED = '["\\u201c]([^"\\u201c\\u201d]{1,200})["\\u201d]';
/** `the "Checkout" button` / `the button labelled "Checkout"`, and nothing more. */
const PROMPT_FORMS = [
  new RegExp(`^${ARTICLE}${QUOTED}\\s+(${KIND_WORDS})$`, "i"),
  new RegExp(`^${ARTICLE}(${KIND_WORDS})${NAMING}\\s+${QUOTED}$`, "i"),
];

/** The quoted text and kind of a prompt of the documented form, else `undefined` (the model decides). */
export function quotedTarget(prompt: string): QuotedTarget | undefined {
  const trimmed = prompt.trim().replace(/[.!]+$/, "");
  const [textFirst, kindFirst] = PROMPT_FORMS.map((form) => form.exec(trimmed));
  if (textFirst) return { text: textFirst[1]!, kind: normalKind(textFirst[2]!) };
  if (kindFirst) return { text: kindFirst[2]!, kind: normalKind(kindFirst[1]!) };
  return undefined;
}

const normalKind = (kind: string) => kind.toLowerCase().replace(/\s+/g, " ");
const normalText = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();

/** Why the page source does not decide, or the one element it names. */
export type TargetFinding = { node: PageNode } | { undecided: string };

/** The one control of `target`'s kind that says its text, on top of the screen, among `nodes` (document order). */
export function findQuotedTarget(nodes: readonly PageNode[], target: QuotedTarget, platform: Platform): TargetFinding {
  const roles = TARGET_KINDS[target.kind] ?? [];
  const text = normalText(target.text);
  const saying = nodes
    .map((node, index) => ({ node, index }))
    .filter(({ index }) => textsOf(nodes, index, platform).some((t) => normalText(t) === text));
  const ofKind = saying.filter(({ node }) => roles.includes(roleOf(node, platform) as ControlRole));
  const what = `${target.kind} saying "${target.text}"`;
  if (ofKind.length === 0) {
    return { undecided: saying.length ? `no ${what} (the text is on another kind of element)` : `no ${what}` };
  }
  if (ofKind.length > 1) return { undecided: `${ofKind.length} elements are a ${what}` };
  const { node, index } = ofKind[0]!;
  if (node.states.enabled === "false") return { undecided: `the ${what} is disabled` };
  if (node.bounds.width < 2 || node.bounds.height < 2) return { undecided: `the ${what} has no size on screen` };
  const cover = coveredBy(nodes, index);
  if (cover) return { undecided: `the ${what} is under another element (${describe(cover, platform)})` };
  return { node };
}

/**
 * What the element at `index` says: its own texts, or, for a control without any, the texts of
 * the plain elements inside it (a Compose button's label is a child text). A field's typed text is
 * not a label: only its hint or placeholder is.
 */
function textsOf(nodes: readonly PageNode[], index: number, platform: Platform): string[] {
  const own = ownTexts(nodes[index]!, platform);
  if (own.length || !roleOf(nodes[index]!, platform)) return own;
  const inside: string[] = [];
  for (let i = index + 1; i < nodes.length && nodes[i]!.depth > nodes[index]!.depth; i++) {
    if (!roleOf(nodes[i]!, platform)) inside.push(...ownTexts(nodes[i]!, platform));
  }
  return inside.length ? [inside.join(" ")] : [];
}

function ownTexts(node: PageNode, platform: Platform): string[] {
  const a = node.attributes;
  const texts =
    platform === "android"
      ? [a.text, a["content-desc"], node.traits.hint]
      : [a.label, node.traits.placeholderValue, node.editable ? undefined : a[TYPED_ATTRIBUTES.ios]];
  return texts.filter((t): t is string => t !== undefined && t.trim() !== "");
}

/**
 * An element drawn over the centre of the element at `index`: one later in document order (drawn
 * after it) that is not inside it and covers its centre, such as a dialog or a sheet.
 */
function coveredBy(nodes: readonly PageNode[], index: number): PageNode | undefined {
  const target = nodes[index]!;
  const centre = { x: target.bounds.x + target.bounds.width / 2, y: target.bounds.y + target.bounds.height / 2 };
  let i = index + 1;
  while (i < nodes.length && nodes[i]!.depth > target.depth) i++; // its own descendants
  for (; i < nodes.length; i++) {
    if (contains(nodes[i]!.bounds as Rect, centre)) return nodes[i];
  }
  return undefined;
}

function describe(node: PageNode, platform: Platform): string {
  const cls = platform === "android" ? node.attributes.class : node.attributes.type;
  const { x, y, width, height } = node.bounds;
  return `${cls ?? node.tag} at (${x}, ${y}) ${width}x${height}`;
}

/**
 * The controls among `nodes` with their roles and boxes, for a text-only model to tell which of the
 * places showing a quoted text belongs to a control of the kind asked for (LocateRequest `controls`).
 */
export function locateControls(nodes: readonly PageNode[], platform: Platform): LocateControl[] {
  const controls: LocateControl[] = [];
  for (const node of nodes) {
    const role = roleOf(node, platform);
    const { x, y, width, height } = node.bounds;
    if (!role || role === "scrollable" || width < 2 || height < 2) continue;
    controls.push({ role, box: { x, y, width, height } });
    if (controls.length === MAX_LOCATE_CONTROLS) break;
  }
  return controls;
}
