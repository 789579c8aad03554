// Try-it revalidation: an answer that carried an ETag is remembered for its exact URL, and the next
// GET of that URL sends it back in If-None-Match, so the page shows what a careful client sees (a
// 304 Not Modified while nothing changed; the gateway relays it and charges it like a 200, see
// docs/market-verdict.md). Pure and browser-safe; the hook keeps one map per try-it panel.

/** ETags by request URL. */
export type RememberedEtags = ReadonlyMap<string, string>;

/** The If-None-Match header for a request, or none: only GET and HEAD revalidate. */
export function conditionalHeaders(etags: RememberedEtags, method: string, url: string): Record<string, string> {
  const m = method.toUpperCase();
  if (m !== "GET" && m !== "HEAD") return {};
  const etag = etags.get(url);
  return etag ? { "if-none-match": etag } : {};
}

/**
 * The map after an answer: a 2xx with an ETag replaces the remembered one, a 304 keeps it (it
 * confirms it), anything else forgets it (the next call asks afresh).
 */
export function rememberEtag(etags: RememberedEtags, url: string, status: number, etag: string | null): Map<string, string> {
  const next = new Map(etags);
  if (status === 304) return next;
  if (status >= 200 && status < 300 && etag) next.set(url, etag);
  else next.delete(url);
  return next;
}
