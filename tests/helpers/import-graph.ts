// The repository's import graph as the TypeScript compiler reads it, for the architecture test:
// every file's static imports, re-exports and dynamic `import()`s, resolved to files or packages.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One import of one file: a file of the repository (`file`) or a package specifier (`bare`). */
export type ImportEdge = {
  /** The specifier as written. */
  specifier: string;
  /** Repository-relative path of the imported file, when the specifier names one. */
  file?: string;
  /** The package specifier (`next/server`, `node:fs`), when it names no file of ours. */
  bare?: string;
  /** Erased at compile time (`import type`, `export type`, every named binding a type, `import("x").T`). */
  typeOnly: boolean;
  /** Loaded when called (`await import("…")`), not when the file loads. */
  dynamic: boolean;
};

/** Repository-relative file path → the imports it makes. */
export type ImportGraph = Map<string, ImportEdge[]>;

const sourceExtensions = [".ts", ".tsx", ".mts", ".mjs"];
/** Not source: installed packages, build output (Next's, the SDK package's dist/), data, the generated Prisma client, benchmark results. */
const skippedDirectories = new Set(["node_modules", ".next", ".data", "dist"]);
const skippedPaths = new Set(["lib/db/generated", "bench/results"]);

/** Every source file under `roots` (directories or single files), repository-relative, sorted. */
export function listSourceFiles(root: string, roots: string[]): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    const absolute = path.join(root, relative);
    if (!existsSync(absolute)) return;
    if (statSync(absolute).isFile()) {
      if (sourceExtensions.includes(path.extname(relative))) files.push(relative);
      return;
    }
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      if (entry.isDirectory() && (skippedDirectories.has(entry.name) || skippedPaths.has(path.join(relative, entry.name)))) continue;
      walk(path.join(relative, entry.name));
    }
  };
  for (const r of roots) walk(r);
  return files.sort();
}

/** Reads and resolves the imports of `files` (repository-relative) under `root`. */
export function readImportGraph(root: string, files: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
    graph.set(
      file,
      collectImports(source).map((edge) => resolveEdge(root, file, edge)),
    );
  }
  return graph;
}

type RawEdge = Pick<ImportEdge, "specifier" | "typeOnly" | "dynamic">;

function collectImports(source: ts.SourceFile): RawEdge[] {
  const edges: RawEdge[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnlyImport(node), dynamic: false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly ||
        Boolean(
          node.exportClause &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly),
        );
      edges.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      edges.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      // A computed specifier (lib/db/schema-diff.ts loads a package file by path) names no module we can check.
      if (argument && ts.isStringLiteralLike(argument)) edges.push({ specifier: argument.text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      edges.push({ specifier: node.argument.literal.text, typeOnly: true, dynamic: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "x"` runs x
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return Boolean(bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly));
}

/** tsconfig.json's `paths` (`@/*` → `./*`, `@l402-hub/sdk/*` → the package's sources), per root. */
const pathsCache = new Map<string, [string, string][]>();
function tsconfigPaths(root: string): [string, string][] {
  let paths = pathsCache.get(root);
  if (!paths) {
    const options = JSON.parse(readFileSync(path.join(root, "tsconfig.json"), "utf8")).compilerOptions as { paths?: Record<string, string[]> };
    // As tsc matches them: an exact pattern first, then the wildcard with the longest prefix.
    paths = Object.entries(options.paths ?? {})
      .map(([pattern, [target]]): [string, string] => [pattern, target])
      .sort(([a], [b]) => Number(a.includes("*")) - Number(b.includes("*")) || b.indexOf("*") - a.indexOf("*"));
    pathsCache.set(root, paths);
  }
  return paths;
}

/** The file a `paths` pattern maps `specifier` to (repository-relative, unresolved), if one matches. */
function mapPaths(root: string, specifier: string): string | undefined {
  for (const [pattern, target] of tsconfigPaths(root)) {
    const star = pattern.indexOf("*");
    if (star < 0) {
      if (specifier === pattern) return path.normalize(target);
      continue;
    }
    const [prefix, suffix] = [pattern.slice(0, star), pattern.slice(star + 1)];
    if (specifier.length >= prefix.length + suffix.length && specifier.startsWith(prefix) && specifier.endsWith(suffix)) {
      return path.normalize(target.replace("*", specifier.slice(prefix.length, specifier.length - suffix.length)));
    }
  }
  return undefined;
}

function resolveEdge(root: string, from: string, edge: RawEdge): ImportEdge {
  const { specifier } = edge;
  let target: string | undefined;
  if (specifier.startsWith(".")) target = path.join(path.dirname(from), specifier);
  else target = mapPaths(root, specifier);
  if (target === undefined) return { ...edge, bare: specifier };
  const file = resolveFile(root, path.normalize(target));
  if (!file) throw new Error(`${from}: cannot resolve "${specifier}"`);
  return { ...edge, file };
}

function resolveFile(root: string, target: string): string | undefined {
  const candidates = [target, ...sourceExtensions.map((e) => target + e), ...sourceExtensions.map((e) => path.join(target, "index" + e))];
  return candidates.find((c) => existsSync(path.join(root, c)) && statSync(path.join(root, c)).isFile());
}

/** Files reachable from `entry` through imports that `follow` accepts, `entry` included. */
export function reachableFiles(graph: ImportGraph, entry: string, follow: (edge: ImportEdge) => boolean): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of graph.get(file) ?? []) if (edge.file && follow(edge)) pending.push(edge.file);
  }
  return seen;
}

/** The strongly connected components of a directed graph with more than one node (its cycles), Tarjan's algorithm. */
export function findCycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  return cycles;
}
