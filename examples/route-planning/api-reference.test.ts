// docs/route-planning-api.md is what the operations generate: a change of a schema, a price or an
// example answer without `npm run docs:routes` fails here.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { apiReference } from "./api-reference.ts";
import { operations } from "./operations/index.ts";
import { testContext } from "./operations/test-engine.ts";
import { REFERENCE_NOW, REFERENCE_PATH } from "./reference-settings.ts";

it("docs/route-planning-api.md is up to date (npm run docs:routes)", () => {
  const generated = apiReference(operations, testContext(REFERENCE_NOW));
  expect(readFileSync(REFERENCE_PATH, "utf8")).toBe(generated);
}, 120_000);
