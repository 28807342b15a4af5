import type { Config } from "jest";

const config: Config = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: {
    "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }],
  },
  testMatch: ["<rootDir>/tests/**/*.test.ts"],
  testTimeout: 60_000,
  reporters: ["default", "<rootDir>/tests/support/summary-reporter.cjs"],
};

export default config;
