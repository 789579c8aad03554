// Endpoint matching by method and path template (`/v1/onchain/entity/{address}`). Pure.

export type RouteTemplate<T> = { method: string; path: string; value: T };

export type CompiledRoute<T> = RouteTemplate<T> & { pattern: RegExp; paramNames: string[]; literalLength: number };

export type RouteMatch<T> =
  | { kind: "match"; value: T; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
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
  return { ...route, method: route.method.toUpperCase(), pattern: new RegExp(`^${source}/?$`), paramNames, literalLength };
}

/**
 * Sorts so that more specific templates win: more literal characters first, then fewer params
 * (`/v1/entity/top` before `/v1/entity/{id}`).
 */
export function sortRoutes<T>(routes: CompiledRoute<T>[]): CompiledRoute<T>[] {
  return [...routes].sort((a, b) => b.literalLength - a.literalLength || a.paramNames.length - b.paramNames.length);
}

/** Finds the endpoint for a method and a tenant-relative path (already normalized). */
export function matchRoute<T>(routes: CompiledRoute<T>[], method: string, path: string): RouteMatch<T> {
  const allowed = new Set<string>();
  const upper = method.toUpperCase();
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
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
  return allowed.size ? { kind: "method_not_allowed", allowed: [...allowed].sort() } : { kind: "not_found" };
}
