/*
 * The evidence `toSatisfy` sends (docs/api.md, "Semantic assertions"): an element's or screen's
 * visible text and its accessibility subtree, one line per element with its role, id, text and
 * states. Text typed into fields never goes: a field's own text or value is replaced, and a typed
 * value found anywhere else is too; a tree in which one would still appear, or over
 * MAX_TREE_CHARS, is left out and the text goes alone.
 */
import type { Platform, Rect } from "../../device/description.js";
import { namesOf, TEXT_ATTRIBUTES, TYPED_ATTRIBUTES } from "../../device/a11y-element.js";
import type { PageNode } from "../../device/page-source-parse.js";
import { escapeRegExp, MIN_SUBSTRING, scrubTyped as scrub } from "../../device/typed-text.js";

export { escapeRegExp };

/** A tree longer than this is left out: the text goes alone. */
export const MAX_TREE_CHARS = 64_000;
/** Text longer than this is cut (and says so). */
export const MAX_TEXT_CHARS = 16_000;
/** What replaces typed text. */
export const TYPED = "[typed text removed]";

/** What one snapshot shows, ready to send and to hash. */
export interface Evidence {
  /** The visible text, in document order, typed text removed. */
  text: string[];
  /** One line per element, indented by depth; `undefined` when left out (`treeLeftOut` says why). */
  tree: string | undefined;
  treeLeftOut?: string;
  /** Bounds of the text fields, painted over in any image sent or stored. */
  fields: Rect[];
  /** Bounds of elements whose text an `ignore` pattern matched, left out of the image's hash. */
  ignoredBounds: Rect[];
}

/** The nodes of `root`'s subtree (itself first), or every node for the whole screen. */
export function subtree(nodes: PageNode[], root: number | undefined): PageNode[] {
  if (root === undefined) return nodes;
  const top = nodes[root]!;
  const out = [top];
  for (let i = root + 1; i < nodes.length && nodes[i]!.depth > top.depth; i++) out.push(nodes[i]!);
  return out;
}

/**
 * The node that is the element at `rect`: the one whose bounds overlap it most (intersection over
 * union at least 0.5), the outermost of equals; `undefined` when none does.
 */
export function nodeAt(nodes: PageNode[], rect: Rect): number | undefined {
  let best: number | undefined;
  let bestScore = 0.5;
  nodes.forEach((node, i) => {
    const score = overlap(node.bounds, rect);
    if (score > bestScore + 1e-9) [best, bestScore] = [i, score];
  });
  return best;
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** What typed into the screen's fields: every field's text or value, longest first. */
export function typedValues(nodes: PageNode[], platform: Platform): string[] {
  const values = nodes
    .filter((n) => n.editable)
    .map((n) => n.traits[TYPED_ATTRIBUTES[platform]]?.trim() ?? "")
    .filter((v) => v.length > 0);
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

/** `text` with every typed value replaced (src/core/device/typed-text.ts). */
function scrubTyped(text: string, typed: readonly string[]): string {
  return scrub(text, typed, TYPED);
}

/** An element's texts for the evidence: a field's typed text replaced, other text scrubbed. */
function textsOf(node: PageNode, platform: Platform, typed: readonly string[]): string[] {
  // A field's typed text is not among its attributes (page-source-parse.ts): it shows as the marker.
  const typedName = node.editable && node.traits[TYPED_ATTRIBUTES[platform]]?.trim() ? TYPED_ATTRIBUTES[platform] : "";
  return TEXT_ATTRIBUTES[platform]
    .filter((name) => name === typedName || node.attributes[name] !== undefined)
    .map((name) => (name === typedName ? TYPED : scrubTyped(node.attributes[name]!, typed)));
}

function lineOf(node: PageNode, platform: Platform, typed: readonly string[], indent: number): string {
  const { id, cls } = namesOf(node, platform);
  const role = (cls ?? "element").replace(/^(android\.(widget|view)\.|XCUIElementType)/, "");
  const texts = [...new Set(textsOf(node, platform, typed))].map((t) => JSON.stringify(t));
  const states = Object.entries(node.states).map(([k, v]) =>
    v === "true" ? k : v === "false" ? `not ${k}` : `${k}=${v}`,
  );
  const idPart = id ? ` #${scrubTyped(id, typed)}` : "";
  const textPart = texts.length ? ` ${texts.join(" ")}` : "";
  const statePart = states.length ? ` [${states.join(", ")}]` : "";
  return `${"  ".repeat(indent)}- ${role}${idPart}${textPart}${statePart}`;
}

/** Options of {@link buildEvidence}. */
export interface EvidenceOptions {
  platform: Platform;
  /** Typed values of the whole screen ({@link typedValues}). */
  typed: readonly string[];
  /** `ignore` patterns: text they match is masked in the hash. */
  ignore: readonly RegExp[];
  /** Why there is no tree at all (the session serves no page source): then the text is empty too. */
  noTree?: string;
}

/** The evidence of `scope` (an element's subtree, or the screen). */
export function buildEvidence(scope: PageNode[], options: EvidenceOptions): Evidence {
  const { platform, typed, ignore } = options;
  const text: string[] = [];
  for (const node of scope) {
    for (const t of textsOf(node, platform, typed)) if (t !== TYPED && text.at(-1) !== t) text.push(t);
  }
  const base = scope[0]?.depth ?? 0;
  let tree: string | undefined = scope.map((n) => lineOf(n, platform, typed, n.depth - base)).join("\n");
  let treeLeftOut: string | undefined;
  if (options.noTree) treeLeftOut = options.noTree;
  else if (tree.length > MAX_TREE_CHARS) treeLeftOut = `the tree has ${tree.length} characters, over ${MAX_TREE_CHARS}`;
  else if (typed.some((v) => v.length >= MIN_SUBSTRING && tree!.toLowerCase().includes(v.toLowerCase()))) {
    treeLeftOut = "a typed value would still appear in it";
  }
  if (treeLeftOut) tree = undefined;
  const matches = (node: PageNode) =>
    ignore.some((re) => Object.values(node.attributes).some((v) => new RegExp(re.source, re.flags).test(v)));
  return {
    text,
    tree,
    ...(treeLeftOut ? { treeLeftOut } : {}),
    fields: scope.filter((n) => n.editable).map((n) => n.bounds),
    ignoredBounds: scope.filter(matches).map((n) => n.bounds),
  };
}

/** The evidence as the model reads it: the text, then the tree. */
export function evidenceText(evidence: Evidence): string {
  let text = evidence.text.map((t) => JSON.stringify(t)).join(" ");
  if (text.length > MAX_TEXT_CHARS) text = `${text.slice(0, MAX_TEXT_CHARS)} [cut at ${MAX_TEXT_CHARS} characters]`;
  const tree = evidence.tree ?? `(left out: ${evidence.treeLeftOut})`;
  return `text: ${text || "(none)"}\naccessibility tree:\n${tree}`;
}

/** The evidence text with every `ignore` match masked: what the hash covers. */
export function maskedForHash(text: string, ignore: readonly RegExp[]): string {
  return ignore.reduce(
    (t, re) => t.replace(new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`), "<ignored>"),
    text,
  );
}
