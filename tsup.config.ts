import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: {
      "android/index": "src/android/index.ts",
      "ios/index": "src/ios/index.ts",
      "runner/index": "src/runner/index.ts",
      "providers/index": "src/providers/index.ts",
      "adapter/index": "src/adapter/index.ts",
      "images/index": "src/images/index.ts",
      "wdio/index": "src/wdio/index.ts",
      "s3/index": "src/s3/index.ts",
      "plugin/index": "src/plugin/index.ts",
      "mcp/index": "src/mcp/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    splitting: true,
    // import.meta.url (the OCR engine finds its optional packages from it) works in the CommonJS build too.
    shims: true,
    // A TypeScript device module of `tapshot mcp` is loaded through the user's own tsx.
    external: ["tsx"],
  },
  {
    entry: { "cli/main": "src/cli/main.ts" },
    format: ["esm"],
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    // `tapshot mcp` loads the mcp entry built above (dist/mcp), so its calls share one copy of the core
    // with the platform entries a device module imports.
    external: [/^\.\.\/mcp\/index\.js$/],
  },
]);
