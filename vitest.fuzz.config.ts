// `npm run fuzz`: the time-bounded fuzz targets in tests/fuzz (FUZZ_SECONDS each; see
// tests/fuzz/harness.ts). Kept out of `npm test`, which runs the bounded property tests instead.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default defineConfig({ ...base, test: { ...base.test, include: ["tests/fuzz/**/*.fuzz.ts"] } });
