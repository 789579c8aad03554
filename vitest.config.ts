import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["node_modules", "e2e", ".next"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // next-auth imports `next/server` without an extension; let vite resolve it.
    server: { deps: { inline: ["next-auth"] } },
    env: { CHECKPOINT_DISABLE: "1", NEXT_TELEMETRY_DISABLED: "1" },
  },
});
