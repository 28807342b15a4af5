import { availableParallelism } from "node:os";
import type { Config } from "jest";

const config: Config = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: {
    // Demo, bench and rig import tapshot as users do; in tests that is the entry's source. The examples
    // are projects of their own, run by tests/examples and tests/wdio through their package.json.
    "^tapshot/(android|ios|runner|providers|adapter|images|wdio|s3)$": "<rootDir>/src/$1/index.ts",
    "^(\\.{1,2}/.*)\\.js$": "$1",
  },
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }],
  },
  testMatch: ["<rootDir>/tests/**/*.test.ts"],
  testTimeout: 60_000,
  // Most test files wait on a device, settle timers or child processes rather than compute: on a 2-core
  // machine two run at once (Jest's default, one less than the cores, would run one at a time).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  reporters: ["default", "<rootDir>/tests/support/summary-reporter.cjs"],
};

export default config;
