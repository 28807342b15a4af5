/*
 * Position words in a tap's prompt (docs/transfer.md): "the first product", "the bottom tab", "the
 * 3rd row". Such a prompt means an element by its place, not by what it is, so a transfer by
 * identity needs the element's place to agree with the words: among the elements of its kind on
 * this screen (the same id, else the same class), it must be the one the words name.
 */
import type { Rect } from "../../ground/geometry.js";

/** A place a prompt names: the `index`-th (0 = first) from the start or the end, along an order. */
export interface NamedPlace {
  /** The words that named it, as written. */
  word: string;
  /** Reading order (rows top to bottom, each left to right), or one axis. */
  order: "reading" | "x" | "y";
  fromEnd: boolean;
  index: number;
}

/** What the prompt names: places tapshot checks, and words of place it cannot check. */
export interface PromptPlaces {
  places: NamedPlace[];
  /** Words of a relation or place without an order ("next to", "middle"): only the model can judge them. */
  unchecked: string[];
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
const AXIS_WORDS: Record<string, Omit<NamedPlace, "word" | "index">> = {
  top: { order: "y", fromEnd: false },
  topmost: { order: "y", fromEnd: false },
  upper: { order: "y", fromEnd: false },
  uppermost: { order: "y", fromEnd: false },
  bottom: { order: "y", fromEnd: true },
  bottommost: { order: "y", fromEnd: true },
  lower: { order: "y", fromEnd: true },
  lowest: { order: "y", fromEnd: true },
  left: { order: "x", fromEnd: false },
  leftmost: { order: "x", fromEnd: false },
  right: { order: "x", fromEnd: true },
  rightmost: { order: "x", fromEnd: true },
};
const UNCHECKED = /\b(nth|middle|center|centre|next to|beside|between|above|below|under|beneath|near|after|before)\b/g;

/** The position words of `prompt` (case-insensitive, whole words). */
export function promptPlaces(prompt: string): PromptPlaces {
  const text = prompt.toLowerCase();
  const places: NamedPlace[] = [];
  const fromLast = /\b(second|2nd|third|3rd)[ -](?:to[ -])?last\b|\bpenultimate\b/g;
  for (const m of text.matchAll(fromLast)) {
    places.push({
      word: m[0],
      order: "reading",
      fromEnd: true,
      index: m[1]?.startsWith("3") || m[1] === "third" ? 2 : 1,
    });
  }
  const rest = text.replace(fromLast, " ");
  for (const m of rest.matchAll(/\b(?:(last)|([a-z]+)|(\d+)(?:st|nd|rd|th))\b/g)) {
    const [word, last, name, digits] = m;
    if (last) places.push({ word, order: "reading", fromEnd: true, index: 0 });
    else if (digits) places.push({ word, order: "reading", fromEnd: false, index: Number(digits) - 1 });
    else if (name && ORDINALS.includes(name))
      places.push({ word, order: "reading", fromEnd: false, index: ORDINALS.indexOf(name) });
    else if (name && AXIS_WORDS[name]) places.push({ word, ...AXIS_WORDS[name], index: 0 });
  }
  return { places, unchecked: [...new Set([...text.matchAll(UNCHECKED)].map((m) => m[0]))] };
}

/**
 * Whether `element` is at `place` among `kind` (the elements of its kind on the screen, itself
 * included); `undefined` when it is, else what the place holds instead.
 */
export function placeDisagreement(place: NamedPlace, element: Rect, kind: readonly Rect[]): string | undefined {
  const sorted = [...kind].sort(ORDERS[place.order]);
  const at = place.fromEnd ? sorted.length - 1 - place.index : place.index;
  const mine = sorted.findIndex((r) => sameRect(r, element));
  if (mine === at) return undefined;
  const n = sorted.length;
  const where = place.fromEnd ? n - mine : mine + 1;
  const named = n > place.index ? "another of these" : "none of these";
  return (
    `"${place.word}" names ${named} ${n}: this one is number ${where} ` +
    `${place.fromEnd ? "from the end" : "from the start"} ${ORDER_NAMES[place.order]}`
  );
}

const centre = (r: Rect) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const sameRect = (a: Rect, b: Rect) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

/** Two elements are in one row when their centres are less than half the smaller height apart vertically. */
function readingOrder(a: Rect, b: Rect): number {
  const [ca, cb] = [centre(a), centre(b)];
  return Math.abs(ca.y - cb.y) < Math.min(a.height, b.height) / 2 ? ca.x - cb.x : ca.y - cb.y;
}

const ORDERS: Record<NamedPlace["order"], (a: Rect, b: Rect) => number> = {
  reading: readingOrder,
  x: (a, b) => centre(a).x - centre(b).x,
  y: (a, b) => centre(a).y - centre(b).y,
};
const ORDER_NAMES: Record<NamedPlace["order"], string> = {
  reading: "in reading order",
  x: "left to right",
  y: "top to bottom",
};
