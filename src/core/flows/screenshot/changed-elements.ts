/*
 * Naming what changed (docs/api.md, "What changed"): a baseline stores the accessibility elements
 * of its screen that have an id or a text; on a mismatch the current screen's elements are
 * matched with them (by id, else by text and class) and the changes whose old or new place has
 * differing pixels are named: text changed, moved, resized, appeared, disappeared.
 */
import type { Platform } from "../../device/description.js";
import { namesOf, type A11yElement } from "../../device/a11y-element.js";
import { contains, type Rect } from "../../ground/geometry.js";
import type { RawImage } from "../../pixels/image-decode.js";
import { clipToScreen } from "../../pixels/masks.js";
import type { BaselineRecord } from "../../store/baseline-record.js";

/** At most this many elements are stored per baseline: the record stays reviewable and the diff quick. */
export const MAX_TREE_ELEMENTS = 400;
/** At most this many changes are named in a message; the rest are counted. */
const MAX_NAMED = 4;
/** A move or resize smaller than this (screenshot pixels) is rounding, not a change. */
const MIN_SHIFT = 2;
/** A colour channel differing by more than this counts as a differing pixel (about pixelmatch's 0.1). */
const CHANNEL_TOLERANCE = 24;

/** The tree a baseline record stores. */
export type StoredTree = NonNullable<BaselineRecord["tree"]>;

/** The elements worth storing: those with an id or a text, smaller than the whole screen, at most {@link MAX_TREE_ELEMENTS}. */
export function trimTree(elements: A11yElement[], platform: Platform, screen: Rect): StoredTree {
  const kept = elements.filter((e) => {
    const { id, text } = namesOf(e, platform);
    return (id !== undefined || text !== undefined) && e.bounds.width * e.bounds.height < screen.width * screen.height;
  });
  return { elements: kept.slice(0, MAX_TREE_ELEMENTS).map(({ attributes, bounds }) => ({ attributes, bounds })) };
}

/** What the two screenshots are, to tell where pixels differ. */
export interface DiffPixels {
  before: RawImage;
  after: RawImage;
  /** Regions the comparison ignored. */
  masks: Rect[];
}

/** One change, placed by where it is on the screen. */
interface Change {
  text: string;
  y: number;
}

/**
 * The changes between the stored and the current elements that overlap differing pixels, as one
 * clause ("'Checkout' (checkout-button) moved down 150 px; a new element 'Free shipping' appeared
 * at y=120"); empty when none is named.
 */
export function describeChanges(
  stored: A11yElement[],
  now: A11yElement[],
  { platform, pixels }: { platform: Platform; pixels: DiffPixels },
): string {
  // A text or size change under a mask (varying content) is not named; an element that appeared, went or
  // moved is, even under a mask: it is what pushed the differing pixels elsewhere.
  const differs = (r: Rect) => differsWithin(pixels, r);
  const changedAtAll = (r: Rect) => differsWithin({ ...pixels, masks: [] }, r);
  const { pairs, gone, added } = matchElements(stored, now, platform);
  const changes: Change[] = [];
  const moves: { dx: number; dy: number; move: string; names: string[]; y: number; lead: A11yElement }[] = [];
  for (const [was, is] of pairs) {
    const name = nameOf(is, platform);
    const oldText = namesOf(was, platform).text;
    const newText = namesOf(is, platform).text;
    const move = direction(is.bounds.x - was.bounds.x, is.bounds.y - was.bounds.y);
    if (oldText !== newText && (differs(was.bounds) || differs(is.bounds))) {
      const moved = move ? ` and moved ${move}` : "";
      changes.push({ text: `${name} text changed ${quote(oldText)} -> ${quote(newText)}${moved}`, y: is.bounds.y });
      continue;
    }
    const dw = is.bounds.width - was.bounds.width;
    const dh = is.bounds.height - was.bounds.height;
    if ((Math.abs(dw) >= MIN_SHIFT || Math.abs(dh) >= MIN_SHIFT) && (differs(was.bounds) || differs(is.bounds))) {
      const size = (r: Rect) => `${r.width}x${r.height}`;
      changes.push({ text: `${name} resized from ${size(was.bounds)} to ${size(is.bounds)} px`, y: is.bounds.y });
      continue;
    }
    if (move && (changedAtAll(was.bounds) || changedAtAll(is.bounds))) {
      // Elements moved alike (a banner pushed the content down), to a pixel or two of rounding, are one change.
      const dx = is.bounds.x - was.bounds.x;
      const dy = is.bounds.y - was.bounds.y;
      const group = moves.find((g) => Math.abs(g.dx - dx) < MIN_SHIFT && Math.abs(g.dy - dy) < MIN_SHIFT);
      if (group) group.names.push(name);
      else moves.push({ dx, dy, move, names: [name], y: is.bounds.y, lead: is });
      if (group && rankOf(is, platform) > rankOf(group.lead, platform)) group.lead = is;
    }
  }
  for (const { move, names, y, lead } of moves) {
    const first = nameOf(lead, platform);
    const others = names.length - 1;
    const who = others ? `${first} and ${others} other element${others > 1 ? "s" : ""}` : first;
    changes.push({ text: `${who} moved ${move}`, y });
  }
  for (const e of added) {
    if (changedAtAll(e.bounds))
      changes.push({ text: `a new element ${nameOf(e, platform)} appeared at y=${e.bounds.y}`, y: e.bounds.y });
  }
  for (const e of gone) {
    if (changedAtAll(e.bounds))
      changes.push({ text: `${nameOf(e, platform)} disappeared from y=${e.bounds.y}`, y: e.bounds.y });
  }
  changes.sort((a, b) => a.y - b.y);
  const named = changes.slice(0, MAX_NAMED).map((c) => c.text);
  const more = changes.length - named.length;
  return named.join("; ") + (more > 0 ? `; ${more} more change${more > 1 ? "s" : ""}` : "");
}

/** Stored and current elements paired by id (when it is unique on both sides), else by text and class. */
function matchElements(stored: A11yElement[], now: A11yElement[], platform: Platform) {
  const pairs: [A11yElement, A11yElement][] = [];
  const gone = new Set(stored);
  const added = new Set(now);
  const keys: ((e: A11yElement) => string | undefined)[] = [
    (e) => namesOf(e, platform).id,
    (e) => {
      const { text, cls } = namesOf(e, platform);
      return text === undefined ? undefined : `${cls ?? ""}\u0000${text}`;
    },
  ];
  for (const key of keys) {
    const unique = (of: Set<A11yElement>) => {
      const by = new Map<string, A11yElement | null>();
      for (const e of of) {
        const k = key(e);
        if (k !== undefined) by.set(k, by.has(k) ? null : e);
      }
      return by;
    };
    const before = unique(gone);
    const after = unique(added);
    for (const [k, was] of before) {
      const is = after.get(k);
      if (!was || !is) continue;
      pairs.push([was, is]);
      gone.delete(was);
      added.delete(is);
    }
  }
  return { pairs, gone: [...gone], added: [...added] };
}

/** Which element of a group moved alike is named: a button first, then one with a text, then one with an id. */
function rankOf(e: A11yElement, platform: Platform): number {
  const { id, text, cls } = namesOf(e, platform);
  return (cls && /button/i.test(cls) ? 4 : 0) + (text !== undefined ? 2 : 0) + (id !== undefined ? 1 : 0);
}

/** `'Checkout' (checkout-button)`, `'Checkout'` or `checkout-button`. */
function nameOf(e: A11yElement, platform: Platform): string {
  const { id, text } = namesOf(e, platform);
  const shown = text === undefined ? undefined : `'${text.length > 60 ? `${text.slice(0, 57)}...` : text}'`;
  if (shown && id) return `${shown} (${id})`;
  return shown ?? id ?? "an element";
}

function quote(text: string | undefined): string {
  return text === undefined ? "(none)" : JSON.stringify(text);
}

/** "down 150 px", "left 20 px and up 8 px", or `undefined` for no move. */
function direction(dx: number, dy: number): string | undefined {
  const parts: string[] = [];
  if (Math.abs(dy) >= MIN_SHIFT) parts.push(`${dy > 0 ? "down" : "up"} ${Math.abs(dy)} px`);
  if (Math.abs(dx) >= MIN_SHIFT) parts.push(`${dx > 0 ? "right" : "left"} ${Math.abs(dx)} px`);
  return parts.length ? parts.join(" and ") : undefined;
}

/** Whether any pixel inside `rect` and outside the masks differs between the two screenshots. */
function differsWithin({ before, after, masks }: DiffPixels, rect: Rect): boolean {
  if (before.width !== after.width || before.height !== after.height) return true;
  const { width } = before;
  const area = clipToScreen(rect, width, before.height);
  if (!area) return false;
  const inMask = (x: number, y: number) => masks.some((m) => contains(m, { x, y }));
  for (let y = area.y; y < area.y + area.height; y++) {
    for (let x = area.x; x < area.x + area.width; x++) {
      const i = (y * width + x) * 4;
      const a = before.data;
      const b = after.data;
      const delta = Math.max(Math.abs(a[i]! - b[i]!), Math.abs(a[i + 1]! - b[i + 1]!), Math.abs(a[i + 2]! - b[i + 2]!));
      if (delta > CHANNEL_TOLERANCE && !inMask(x, y)) return true;
    }
  }
  return false;
}
