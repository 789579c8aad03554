import { readFileSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";

// tsconfig.json's `paths`, as tsc, tsx and Next resolve them: "@/…" from the repository root (the
// one import style across folders), and `@l402-hub/sdk[/…]` from the package's TypeScript sources
// (docs/decisions.md, "The SDK as a workspace package"). Read from there, so the two cannot drift.
const tsconfigPaths: Record<string, string[]> = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")).compilerOptions.paths;
// Exact patterns before wildcards, longer prefixes first: the first matching alias wins, as in tsc.
const pathAliases = Object.entries(tsconfigPaths)
  .sort(([a], [b]) => Number(a.includes("*")) - Number(b.includes("*")) || b.length - a.length)
  .map(([pattern, [target]]) => ({
    find: new RegExp(`^${pattern.replace(/[/.]/g, "\\$&").replace("*", "(.+)")}$`),
    replacement: path.resolve(import.meta.dirname, target.replace("*", "$1")),
  }));

export default defineConfig({
  resolve: { alias: pathAliases },
  test: {
    include: ["lib/**/*.test.ts", "packages/*/src/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["node_modules", "e2e", ".next", "packages/*/dist"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // next-auth imports `next/server` without an extension; let vite resolve it.
    server: { deps: { inline: ["next-auth"] } },
    env: { CHECKPOINT_DISABLE: "1", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
