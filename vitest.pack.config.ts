// `npm run sdk:pack-test`: packs @l402-hub/sdk with `npm pack`, installs the tarball into an empty
// folder and drives what was installed (tests/sdk/package.pack-test.ts). Kept out of `npm test`: it
// builds the package and installs its dependencies from the npm registry.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default defineConfig({ ...base, test: { ...base.test, include: ["tests/sdk/package.pack-test.ts"], testTimeout: 120_000, hookTimeout: 180_000 } });
