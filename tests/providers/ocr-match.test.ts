import type { TextLine } from "../../src/providers/ocr/engine.js";
import {
  bestMatches,
  findPhrase,
  findWords,
  namesGraphic,
  negates,
  normalize,
  quotedPhrases,
  salientWords,
  similarity,
  unquoted,
} from "../../src/providers/ocr/match.js";

const line = (text: string, x: number, y: number, width = text.length * 20, height = 40): TextLine => ({
  text,
  box: { x, y, width, height },
  confidence: 0.99,
});

describe("quotedPhrases", () => {
  test("reads double, typographic, single and backtick quotes", () => {
    expect(quotedPhrases(`the "Checkout" button`)).toEqual(["Checkout"]);
    expect(quotedPhrases("the “Sign in” link and ‘Help’")).toEqual(["Sign in", "Help"]);
    expect(quotedPhrases("the 'Save' button, then `Done`")).toEqual(["Save", "Done"]);
  });

  test("does not take apostrophes for quotes", () => {
    expect(quotedPhrases("the user's cart isn't empty")).toEqual([]);
    expect(quotedPhrases("don't tap 'Cancel'")).toEqual(["Cancel"]);
  });

  test("ignores empty and punctuation-only quotes", () => {
    expect(quotedPhrases(`a "..." button`)).toEqual([]);
  });
});

describe("salientWords", () => {
  test("drops the words that describe a control, keeps the ones that may be its text", () => {
    expect(salientWords("Tap the checkout button")).toEqual(["checkout"]);
    expect(salientWords("the blue Continue shopping link at the bottom")).toEqual(["continue", "shopping"]);
    expect(salientWords("the dark theme row")).toEqual(["dark", "theme"]);
  });

  test("is empty for a prompt that names no text", () => {
    expect(salientWords("the button at the top right")).toEqual([]);
  });
});

describe("normalize and similarity", () => {
  test("folds case, width and surrounding punctuation", () => {
    expect(normalize("  CHECKOUT!  now ")).toBe("checkout now");
    expect(normalize("＄19.99")).toBe("$19.99");
  });

  test("similarity is 1 minus edits over the longer length", () => {
    expect(similarity("checkout", "checkout")).toBe(1);
    expect(similarity("chekout", "checkout")).toBeCloseTo(7 / 8);
    expect(similarity("$19.99", "$18.99")).toBeCloseTo(5 / 6);
    expect(similarity("", "x")).toBe(0);
  });
});

describe("negates", () => {
  test("finds words that claim absence", () => {
    expect(negates(unquoted(`the "Remove" button is not shown`))).toBe(true);
    expect(negates(unquoted(`"Error" disappeared`))).toBe(true);
    expect(negates(unquoted(`the cart isn't empty`))).toBe(true);
  });

  test("ignores the quoted text itself", () => {
    expect(negates(unquoted(`the "Not now" button is shown`))).toBe(false);
  });
});

describe("findPhrase", () => {
  const lines = [line("My Cart", 0, 0), line("Checkout", 100, 500), line("Continue shopping", 100, 600, 340)];

  test("finds exact and fuzzy text, case-insensitively", () => {
    expect(findPhrase("checkout", lines, 0.8).map((m) => m.text)).toEqual(["Checkout"]);
    expect(findPhrase("Chekout", lines, 0.8).map((m) => m.text)).toEqual(["Checkout"]);
    expect(findPhrase("Check out", lines, 0.8).map((m) => m.text)).toEqual(["Checkout"]);
    expect(findPhrase("Payment", lines, 0.8)).toEqual([]);
  });

  test("gives the box of the matching part of a longer line", () => {
    const [match] = findPhrase("shopping", lines, 0.8);
    expect(match?.text).toBe("shopping");
    // "shopping" is characters 9..17 of 17 in a 340 px wide line.
    expect(match?.box.x).toBeCloseTo(100 + (340 * 9) / 17);
    expect(match?.box.width).toBeCloseTo((340 * 8) / 17);
  });

  test("prefers a line that is exactly the text over a line that contains it", () => {
    const two = [line("Continue", 0, 100), line("Continue shopping", 0, 200)];
    const best = bestMatches(findPhrase("Continue", two, 0.8));
    expect(best.map((m) => m.line.text)).toEqual(["Continue"]);
  });

  test("two lines reading the same label tie", () => {
    const two = [line("Remove", 500, 180), line("Remove", 500, 320)];
    expect(bestMatches(findPhrase("remove", two, 0.8))).toHaveLength(2);
  });
});

describe("findWords", () => {
  test("needs at least half the salient words in one line", () => {
    const lines = [line("Continue shopping", 0, 0), line("Blue T-shirt", 0, 100)];
    expect(bestMatches(findWords(["continue", "shopping"], lines, 0.8)).map((m) => m.text)).toEqual([
      "Continue shopping",
    ]);
    expect(findWords(["gear", "settings", "profile"], lines, 0.8)).toEqual([]);
  });

  test("words of three letters or fewer must match exactly", () => {
    expect(findWords(["pay"], [line("Day", 0, 0)], 0.6)).toEqual([]);
    expect(findWords(["pay"], [line("Pay", 0, 0)], 0.6)).toHaveLength(1);
  });
});

describe("namesGraphic", () => {
  test("an icon or image named without quotes is a graphic; a quoted label is not", () => {
    expect(namesGraphic("the cart icon in the top right corner")).toBe(true);
    expect(namesGraphic("the profile picture")).toBe(true);
    expect(namesGraphic('the "Icons" tab')).toBe(false);
    expect(namesGraphic("the checkout button")).toBe(false);
  });
});
