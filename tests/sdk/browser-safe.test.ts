// The client SDK and try-it's browser logic run in browsers: every module they import, followed
// through relative imports, must stay off Node built-ins and server modules (database, config, logging).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const serverOnly = [/^node:/, /^pg$/, /^ioredis$/, /^@prisma\//, /^next-auth/, /^nodemailer$/];

/** Every module reachable at run time from `entry` through relative imports, with the bare specifiers each uses. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (file: string) => {
    if (graph.has(file)) return;
    const source = readFileSync(file, "utf8");
    // `import type` / `export type` are erased before anything runs, so they reach nothing.
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b(?!\s+type\b)[^;]*?\bfrom\s+"([^"]+)"/g)].map((m) => m[1]);
    graph.set(file, specifiers.filter((s) => !s.startsWith(".")));
    for (const s of specifiers) if (s.startsWith(".")) visit(path.resolve(path.dirname(file), s));
  };
  visit(path.join(root, entry));
  return graph;
}

describe("browser-safe modules", () => {
  // The try-it modules that reach the SDK at run time (the others import only types, or nothing).
  for (const entry of ["lib/sdk/client/index.ts", "lib/try-it/visitor-wallet.ts", "lib/try-it/held-credentials.ts"]) {
    it(`${entry} reaches no Node built-in or server module`, () => {
      const graph = importGraph(entry);
      expect(graph.size).toBeGreaterThan(1);
      const offending = [...graph].flatMap(([file, bare]) => bare.filter((s) => serverOnly.some((re) => re.test(s))).map((s) => `${path.relative(root, file)} imports ${s}`));
      const serverFiles = [...graph.keys()].map((f) => path.relative(root, f)).filter((f) => /^lib\/(db|config|logging|gateway|store)\//.test(f));
      expect(offending).toEqual([]);
      expect(serverFiles).toEqual([]);
    });
  }
});
