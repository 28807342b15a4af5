/** Jest runs the TypeScript specs as ES modules (so `npm test` sets --experimental-vm-modules). */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true }] },
  testMatch: ["<rootDir>/*.test.ts"],
  // A session and the device's first screenshot take a while.
  testTimeout: 120_000,
};
