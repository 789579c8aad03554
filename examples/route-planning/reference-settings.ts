// What docs/route-planning-api.md is generated with: where it lives and the fixed clock its example
// answers are computed at (so regenerating changes the file only when the API changed).
import path from "node:path";

export const REFERENCE_PATH = path.join(import.meta.dirname, "../../docs/route-planning-api.md");
export const REFERENCE_NOW = new Date("2026-11-26T09:00:00Z");
