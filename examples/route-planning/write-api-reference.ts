// `npm run docs:routes`: writes docs/route-planning-api.md from the operations (api-reference.ts).
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { apiReference } from "./api-reference.ts";
import { RouteEngine } from "./engine/index.ts";
import { operations } from "./operations/index.ts";
import { REFERENCE_NOW, REFERENCE_PATH } from "./reference-settings.ts";

const engine = new RouteEngine({ dataDir: process.env.DATA_DIR ?? path.join(os.tmpdir(), "l402-hub-route-engine-test") });
writeFileSync(REFERENCE_PATH, apiReference(operations, { engine, now: REFERENCE_NOW }));
console.log(`wrote ${REFERENCE_PATH}`);
