// Endpoint matching by method and path template (`/v1/onchain/entity/{address}`) on the canonical
// request path (lib/l402/canonical-path.ts). Literal segments match case-sensitively, and a path that
// names a more specific template only in other letter case (`/v1/entity/TOP` beside
// `/v1/entity/top` and `/v1/entity/{id}`) is reported, never matched to the cheaper template: an
// origin that routes case-insensitively would serve the other endpoint. Pure.

export type RouteTemplate<T> = { method: string; path: string; value: T };

export type CompiledRoute<T> = RouteTemplate<T> & { pattern: RegExp; caselessPattern: RegExp; paramNames: string[]; literalLength: number };

export type RouteMatch<T> =
  | { kind: "match"; value: T; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
  | { kind: "case_mismatch"; template: string }
  | { kind: "not_found" };

/** Compiles a template: `{name}` matches one non-empty segment; everything else is literal. */
export function compileRoute<T>(route: RouteTemplate<T>): CompiledRoute<T> {
  const paramNames: string[] = [];
  let literalLength = 0;
  const source = route.path
    .split("/")
    .map((segment) => {
      const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
      if (param) {
        paramNames.push(param[1]);
        return "([^/]+)";
      }
      literalLength += segment.length;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return {
    ...route,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${source}/?$`),
    caselessPattern: new RegExp(`^${source}/?$`, "i"),
    paramNames,
    literalLength,
  };
}

/**
 * Sorts so that more specific templates win: more literal characters first, then fewer params
 * (`/v1/entity/top` before `/v1/entity/{id}`).
 */
export function sortRoutes<T>(routes: CompiledRoute<T>[]): CompiledRoute<T>[] {
  return [...routes].sort((a, b) => b.literalLength - a.literalLength || a.paramNames.length - b.paramNames.length);
}

/**
 * Finds the endpoint for a method and a canonical tenant-relative path. `case_mismatch` when the
 * most specific template the path matches ignoring case is not the one it matches exactly (or it
 * matches none exactly).
 */
export function matchRoute<T>(routes: CompiledRoute<T>[], method: string, path: string): RouteMatch<T> {
  const allowed = new Set<string>();
  const upper = method.toUpperCase();
  let caseless: string | null = null;
  let exact = false;
  for (const route of routes) {
    if (caseless === null && route.caselessPattern.test(path)) caseless = route.path;
    const m = route.pattern.exec(path);
    if (!m) continue;
    // The first exact match must be the template the path names ignoring case (later exact
    // matches are other methods' templates, chosen by method as before).
    if (!exact && caseless !== route.path) return { kind: "case_mismatch", template: caseless! };
    exact = true;
    // HEAD is served by GET routes, like every HTTP server does.
    if (route.method === upper || (upper === "HEAD" && route.method === "GET")) {
      const params: Record<string, string> = {};
      route.paramNames.forEach((name, i) => {
        params[name] = m[i + 1];
      });
      return { kind: "match", value: route.value, params };
    }
    allowed.add(route.method);
  }
  if (allowed.size) return { kind: "method_not_allowed", allowed: [...allowed].sort() };
  return caseless === null ? { kind: "not_found" } : { kind: "case_mismatch", template: caseless };
}
