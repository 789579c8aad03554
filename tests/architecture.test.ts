// The module map holds: ARCHITECTURE.md's "Module dependencies" table is the rule (who may import
// whom, read from the file itself so the doc and the check cannot drift), plus the rules a table
// cannot say: no Next in the gateway, worker or SDK, an SDK package (packages/sdk) free of the
// platform with its own dependencies and the platform on its exported subpaths only, no test code
// in production, browser-safe client code, and no import cycle anywhere.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCycles, listSourceFiles, reachableFiles, readImportGraph, type ImportEdge } from "./helpers/import-graph.ts";

const root = path.resolve(import.meta.dirname, "..");
const graph = readImportGraph(root, listSourceFiles(root, ["lib", "packages", "app", "server.ts", "middleware.ts", "scripts", "prisma", "bench", "examples"]));

/** Test code: unit tests beside the code, fuzz targets, and everything under tests/ and e2e/. */
const isTestFile = (file: string) => /\.(test|fuzz)\.tsx?$/.test(file) || /^(tests|e2e)\//.test(file);
/** What ships and runs: every file but test code and bench/ (a measuring tool, built on the tests' fixtures). */
const isProductionFile = (file: string) => !isTestFile(file) && !file.startsWith("bench/");
const sourceFiles = [...graph.keys()].filter((file) => !isTestFile(file));

/** The SDK package: its folder, its package.json and the subpaths it exports. */
const sdkDir = "packages/sdk";
const sdkPackage = JSON.parse(readFileSync(path.join(root, sdkDir, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

/**
 * The module a file belongs to, as ARCHITECTURE.md names it: a file of the SDK package is the
 * subpath it is exported under (`packages/sdk/src/client.ts` and `src/client/**` are
 * `@l402-hub/sdk/client`; its package.json is `@l402-hub/sdk/package.json`), `lib/<dir>` is `<dir>`, `lib/<file>.ts` is `<file>`, a file of prisma/ is
 * itself, anything else its top-level folder or file. Undefined for files outside the map (package.json).
 */
function moduleOf(file: string): string | undefined {
  const sdk = new RegExp(`^${sdkDir}/src/([^/.]+)(/|\\.tsx?$)`).exec(file);
  if (sdk) return `${sdkPackage.name}/${sdk[1]}`;
  if (file.startsWith(`${sdkDir}/`)) return `${sdkPackage.name}/${file.slice(sdkDir.length + 1)}`; // its package.json (name, version)
  const lib = /^lib\/([^/]+)(\/|\.tsx?$)/.exec(file);
  if (lib) return lib[1];
  if (file.startsWith("prisma/")) return file; // seed.ts runs the demo seed, which builds on factories.ts
  if (/^(app|scripts|bench|examples|tests|e2e)\//.test(file)) return file.split("/")[0];
  if (file === "server.ts" || file === "middleware.ts") return file;
  return undefined;
}

type ModuleEdges = Map<string, Map<string, string[]>>;

/** Module → module it imports → the file imports that make the dependency (for messages). */
function moduleEdges(): ModuleEdges {
  const edges: ModuleEdges = new Map();
  for (const file of sourceFiles) {
    const from = moduleOf(file)!;
    if (!edges.has(from)) edges.set(from, new Map());
    for (const edge of graph.get(file)!) {
      const to = edge.file && moduleOf(edge.file);
      if (!to || to === from) continue;
      const evidence = edges.get(from)!.get(to) ?? [];
      evidence.push(`${file} → ${edge.file}`);
      edges.get(from)!.set(to, evidence);
    }
  }
  return edges;
}

/** ARCHITECTURE.md's "Module dependencies" table: module → the modules it may import. */
function readDependencyTable(): Map<string, Set<string>> {
  const doc = readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
  const section = doc.split(/^## Module dependencies$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('ARCHITECTURE.md has no "## Module dependencies" section');
  const table = new Map<string, Set<string>>();
  for (const line of section.split("\n")) {
    const row = /^\|\s*`([^`]+)`\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    if (table.has(row[1])) throw new Error(`ARCHITECTURE.md lists \`${row[1]}\` twice`);
    table.set(row[1], new Set([...row[2].matchAll(/`([^`]+)`/g)].map((m) => m[1])));
  }
  return table;
}

const actual = moduleEdges();
const allowed = readDependencyTable();

describe("module dependencies (ARCHITECTURE.md table)", () => {
  it("names every module that exists, and only modules", () => {
    const unlisted = [...actual.keys()].filter((m) => !allowed.has(m));
    expect(unlisted, "add a row for each to ARCHITECTURE.md's Module dependencies").toEqual([]);
    const unknown = [...allowed].flatMap(([m, targets]) => [...targets].filter((t) => !allowed.has(t)).map((t) => `${m} → ${t}`));
    expect(unknown, "a dependency on a module without a row").toEqual([]);
  });

  it("allows every import the code makes", () => {
    const forbidden = [...actual].flatMap(([from, targets]) =>
      [...targets].filter(([to]) => !allowed.get(from)?.has(to)).map(([to, evidence]) => `${from} → ${to}: ${evidence.join(", ")}`),
    );
    expect(forbidden, "move the code, or (if the dependency is right) add it to the table").toEqual([]);
  });

  it("allows nothing the code does not do (the table stays a true map)", () => {
    const unused = [...allowed].flatMap(([from, targets]) =>
      actual.has(from) ? [...targets].filter((to) => !actual.get(from)!.has(to)).map((to) => `${from} → ${to}`) : [],
    );
    expect(unused, "remove these from ARCHITECTURE.md's table").toEqual([]);
  });

  it("points one way: no cycle between modules", () => {
    expect(findCycles(allowed)).toEqual([]);
    const edges = new Map([...actual].map(([from, targets]) => [from, new Set(targets.keys())]));
    expect(findCycles(edges)).toEqual([]);
  });

  it("keeps examples on the public SDK, as a stranger's origin would", () => {
    expect([...(allowed.get("examples") ?? [])].every((m) => m.startsWith(`${sdkPackage.name}/`))).toBe(true);
    const reaching = sourceFiles
      .filter((file) => file.startsWith("examples/"))
      .flatMap((file) =>
        graph
          .get(file)!
          .filter((e) => e.file && !e.file.startsWith("examples/") && !e.file.startsWith(`${sdkDir}/`))
          .map((e) => `${file} → ${e.file}`),
      );
    expect(reaching).toEqual([]);
  });
});

describe("the SDK is a package of its own (packages/sdk, @l402-hub/sdk)", () => {
  const packageFiles = [...graph.keys()].filter((file) => file.startsWith(`${sdkDir}/`));
  /** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
  const packageName = (bare: string) =>
    bare
      .split("/")
      .slice(0, bare.startsWith("@") ? 2 : 1)
      .join("/");
  const isBuiltin = (bare: string) => bare.startsWith("node:") || builtinModules.includes(bare);
  /** An exported subpath's target in dist/ → the source file it is built from. */
  const sourceOf = (target: string) => target.replace(/^(\.\/)?dist\//, `${sdkDir}/src/`).replace(/\.(d\.ts|js)$/, ".ts");

  it("finds the package's files", () => {
    expect(packageFiles).toContain(`${sdkDir}/src/client.ts`);
    expect(packageFiles).toContain(`${sdkDir}/src/mcp/server.ts`);
  });

  it("imports nothing outside itself, its tests included: no lib/, app/ or tests/ file", () => {
    const reaching = packageFiles.flatMap((file) =>
      graph
        .get(file)!
        .filter((e) => e.file && !e.file.startsWith(`${sdkDir}/`))
        .map((e) => `${file} → ${e.file}`),
    );
    expect(reaching).toEqual([]);
  });

  it("imports, outside its tests, only Node built-ins and the dependencies its own package.json declares", () => {
    const undeclared = packageFiles
      .filter((file) => !isTestFile(file))
      .flatMap((file) =>
        graph
          .get(file)!
          .filter((e) => e.bare && !isBuiltin(e.bare) && !(packageName(e.bare) in sdkPackage.dependencies))
          .map((e) => `${file} imports ${e.bare}`),
      );
    expect(undeclared).toEqual([]);
  });

  it("exports each subpath from a source file of its own, and its bin is the MCP server", () => {
    for (const [subpath, target] of Object.entries(sdkPackage.exports)) {
      if (subpath === "./package.json") continue;
      if (typeof target === "string") throw new Error(`${subpath}: give "types" and "default"`);
      expect(sourceOf(target.types), subpath).toBe(sourceOf(target.default));
      expect(graph.has(sourceOf(target.default)), `${subpath} → ${sourceOf(target.default)}`).toBe(true);
    }
    expect(Object.values(sdkPackage.bin).map(sourceOf)).toEqual([`${sdkDir}/src/mcp/server.ts`]);
  });

  it("the platform imports it by name, through subpaths the package exports", () => {
    const exported = new Set(Object.keys(sdkPackage.exports).map((subpath) => (subpath === "." ? sdkPackage.name : `${sdkPackage.name}/${subpath.slice(2)}`)));
    const offending = [...graph]
      .filter(([file]) => !file.startsWith(`${sdkDir}/`))
      .flatMap(([file, edges]) =>
        edges
          .filter(
            (e) =>
              (e.file?.startsWith(`${sdkDir}/`) && !e.specifier.startsWith(sdkPackage.name)) ||
              (e.specifier.startsWith(sdkPackage.name) && !exported.has(e.specifier)),
          )
          .map((e) => `${file} imports "${e.specifier}"`),
      );
    expect(offending).toEqual([]);
  });
});

describe("no Next.js outside the web app", () => {
  const nextOnly = [/^next(\/|$)/, /^next-auth(\/|$)/, /^@auth\/nextjs(\/|$)/, /^server-only$/];
  const entries = sourceFiles.filter((file) => /^(lib\/(gateway|jobs)|packages\/sdk|examples)\//.test(file));

  it("finds the files it checks", () => {
    expect(
      entries.some((f) => f.startsWith("lib/gateway/")) && entries.some((f) => f.startsWith("lib/jobs/")) && entries.some((f) => f.startsWith("packages/sdk/")),
    ).toBe(true);
  });

  it("lib/gateway, lib/jobs, packages/sdk and examples/ never reach next/*, next-auth or server-only, however indirectly", () => {
    const reached = new Set<string>();
    for (const entry of entries) for (const file of reachableFiles(graph, entry, () => true)) reached.add(file);
    const offending = [...reached].flatMap((file) =>
      (graph.get(file) ?? []).filter((e) => e.bare && nextOnly.some((re) => re.test(e.bare!))).map((e) => `${file} imports ${e.bare}`),
    );
    expect(offending).toEqual([]);
  });
});

describe("test code stays out of production", () => {
  it("no production file imports tests/, e2e/ or a test file", () => {
    const offending = [...graph]
      .filter(([file]) => isProductionFile(file))
      .flatMap(([file, edges]) => edges.filter((e) => e.file && isTestFile(e.file)).map((e) => `${file} → ${e.file}`));
    expect(offending).toEqual([]);
  });
});

describe("no import cycle between files", () => {
  it("production files import one way", () => {
    const edges = new Map(sourceFiles.map((file) => [file, new Set(graph.get(file)!.flatMap((e) => (e.file ? [e.file] : [])))]));
    expect(findCycles(edges)).toEqual([]);
  });
});

// The client SDK and the try-it helpers run in browsers: every file they import, followed through
// imports, must stay off Node built-ins and server modules. A bundle holds what is imported at
// runtime (type-only imports are erased), which is what try-it's helpers are held to; the client SDK
// and the live viewer's reader are held to more, as before: not even their types come from there.
describe("browser-safe modules", () => {
  const serverOnly = [/^node:/, /^pg$/, /^ioredis$/, /^@prisma\//, /^next-auth/, /^nodemailer$/];
  const serverModules = /^lib\/(db|config|logging|gateway|store)\//;
  const strictEntries = ["packages/sdk/src/client.ts", "lib/try-it/read-event-stream.ts"].filter((file) => graph.has(file));
  const runtimeEntries = sourceFiles.filter((file) => file.startsWith("lib/try-it/") && !strictEntries.includes(file));
  const atRuntime = (edge: ImportEdge) => !edge.typeOnly;

  for (const [entries, follow, how] of [
    [strictEntries, () => true, "through every import"],
    [runtimeEntries, atRuntime, "at runtime"],
  ] as const) {
    for (const entry of entries) {
      it(`${entry} reaches no Node built-in or server module ${how}`, () => {
        const reached = reachableFiles(graph, entry, follow);
        const offending = [...reached].flatMap((file) =>
          (graph.get(file) ?? []).filter((e) => follow(e) && e.bare && serverOnly.some((re) => re.test(e.bare!))).map((e) => `${file} imports ${e.bare}`),
        );
        expect(offending).toEqual([]);
        expect([...reached].filter((file) => serverModules.test(file))).toEqual([]);
      });
    }
  }

  it("checks the client and try-it's helpers", () => {
    expect(strictEntries).toContain("packages/sdk/src/client.ts");
    expect(strictEntries.length + runtimeEntries.length).toBeGreaterThan(1);
    expect(reachableFiles(graph, "packages/sdk/src/client.ts", () => true).size).toBeGreaterThan(1);
  });
});
