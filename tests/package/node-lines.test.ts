/**
 * The Node.js lines tapshot says it supports are the lines .ci/run tests: scripts/node-lines.txt pins one binary per
 * line, and package.json's `engines`, the README and the optional AWS SDK the tests lock agree with it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

interface NodeLine {
  line: number;
  role: string;
  version: string;
  integrity: string;
}

const LINES: NodeLine[] = read("scripts/node-lines.txt")
  .split("\n")
  .filter((row) => /^\d/.test(row))
  .map((row) => {
    const [line, role, version, integrity] = row.trim().split(/\s+/);
    return { line: Number(line), role: role!, version: version!, integrity: integrity! };
  });
const majors = (text: string) => [...new Set([...text.matchAll(/\b(\d+)(?:\.\d+)*\+?/g)].map((m) => Number(m[1])))];
const sorted = (numbers: number[]) => [...numbers].sort((a, b) => a - b);

describe("the tested Node lines (scripts/node-lines.txt)", () => {
  test("one full line and the rest smoke lines, each pinned to a version of its line with npm's integrity", () => {
    expect(LINES.filter((l) => l.role === "full")).toHaveLength(1);
    for (const { line, role, version, integrity } of LINES) {
      expect(["full", "smoke"]).toContain(role);
      expect(version).toMatch(new RegExp(`^${line}\\.\\d+\\.\\d+$`));
      expect(integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
  });

  test("package.json's engines allow exactly those lines", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const ranges = engines.split("||").map((range) => range.trim());
    expect(ranges.every((range) => /^\^\d+\.\d+\.\d+$/.test(range))).toBe(true);
    expect(sorted(majors(engines))).toEqual(sorted(LINES.map((l) => l.line)));
  });

  test("the README names exactly those lines, where it says which Node.js tapshot needs", () => {
    const needs = read("README.md")
      .split("\n")
      .filter((row) => /Node\.js \d/.test(row));
    expect(needs.length).toBeGreaterThan(0);
    for (const row of needs)
      expect(sorted(majors(row.slice(row.indexOf("Node.js"))))).toEqual(sorted(LINES.map((l) => l.line)));
  });

  test("the AWS SDK the tests lock still supports every tested line (docs/device-farms.md: 20 goes when it goes)", () => {
    // A lock file that brings an SDK for newer Node only fails here: drop the line it leaves behind from
    // scripts/node-lines.txt, engines and the README in the same change.
    const engines = (
      JSON.parse(read("node_modules/@aws-sdk/client-s3/package.json")) as { engines?: { node?: string } }
    ).engines?.node;
    const needs = Number(/^>=(\d+)\.\d+\.\d+$/.exec(engines ?? "")?.[1]);
    const oldestLine = Math.min(...LINES.map((l) => l.line));
    expect({ engines, oldestLine, supported: needs <= oldestLine }).toEqual({ engines, oldestLine, supported: true });
  });
});
