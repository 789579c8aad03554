// Runs `prisma generate` offline. Prisma 7's generate uses wasm, but the CLI still checks for a
// native schema engine it would download; pointing it at any existing file skips the download.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
  },
});
process.exit(result.status ?? 1);
