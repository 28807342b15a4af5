import { contains } from "../../src/core/ground/geometry.js";

describe("contains: the one point-in-rectangle rule", () => {
  const rect = { x: 10, y: 20, width: 5, height: 4 };

  test("covers x to x + width without the far edge: the pixel there belongs to the next rectangle", () => {
    expect(contains(rect, { x: 10, y: 20 })).toBe(true);
    expect(contains(rect, { x: 14, y: 23 })).toBe(true);
    expect(contains(rect, { x: 15, y: 23 })).toBe(false);
    expect(contains(rect, { x: 14, y: 24 })).toBe(false);
    expect(contains(rect, { x: 9, y: 20 })).toBe(false);
    expect(contains(rect, { x: 10, y: 19 })).toBe(false);
  });

  test("farEdge counts the far edge in, for a rounded centre that lands on it, and nothing beyond", () => {
    expect(contains(rect, { x: 15, y: 24 }, { farEdge: true })).toBe(true);
    expect(contains(rect, { x: 16, y: 24 }, { farEdge: true })).toBe(false);
    expect(contains(rect, { x: 9, y: 22 }, { farEdge: true })).toBe(false);
  });

  test("a 1-pixel box: its rounded centre lands on the far edge, which a stored point may be on", () => {
    const box = { x: 100, y: 200, width: 1, height: 1 };
    const centre = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    expect(contains(box, centre)).toBe(false);
    expect(contains(box, centre, { farEdge: true })).toBe(true);
  });
});
