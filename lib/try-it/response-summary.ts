// What try-it shows of a gateway response: the headers that matter (spec 4.1, 7.2) and the body,
// pretty-printed when it is JSON. Pure and browser-safe.

/** Response headers worth showing, in display order (the gateway exposes all of them to browsers). */
export const HEADERS_THAT_MATTER = [
  "X-Hub-Payment",
  "X-Hub-Payment-Code",
  "X-Session-Token",
  "X-Session-Balance",
  "X-Session-Expires",
  "X-Free-Try",
  "X-Cache",
  "X-Cache-Age",
  "X-Data-Size-KB",
  "X-Data-Cost-Sats",
  "Retry-After",
  "ETag",
  "Cache-Control",
  "Content-Type",
  "X-Request-Id",
] as const;

/** Longest body text shown; the rest is cut with a note (the response is still fully received). */
export const MAX_SHOWN_BODY_CHARS = 100_000;

/** The headers of HEADERS_THAT_MATTER that the response carries, as [name, value] pairs. */
export function headersThatMatter(headers: Pick<Headers, "get">): [string, string][] {
  return HEADERS_THAT_MATTER.flatMap((name) => {
    const value = headers.get(name);
    return value === null ? [] : [[name, value] as [string, string]];
  });
}

/** The body as shown: pretty JSON when it parses, the text otherwise; cut past MAX_SHOWN_BODY_CHARS. */
export function formatResponseBody(text: string): { text: string; json: boolean; truncated: boolean } {
  let shown = text;
  let json = false;
  if (text.trim() !== "") {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
      json = true;
    } catch {
      shown = text;
    }
  }
  const truncated = shown.length > MAX_SHOWN_BODY_CHARS;
  return { text: truncated ? shown.slice(0, MAX_SHOWN_BODY_CHARS) : shown, json, truncated };
}

/** A duration for people: "84 ms", "1.3 s". */
export function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** What a failing status (or a 304) means for the visitor, in a sentence; null for success. */
export function explainStatus(status: number, headers: Pick<Headers, "get">): string | null {
  const code = headers.get("x-hub-payment-code");
  if (status === 304)
    return "Not Modified: nothing changed since the answer whose ETag this call sent in If-None-Match, so no body came back. The call is paid like a 200.";
  if (status < 400) return null;
  if (code === "upstream_failed_retryable") return "The API failed; your payment was reverted and the same proof can be used again for free.";
  if (status === 400) return "The gateway or the API refused the request as malformed.";
  if (status === 401) return "The gateway refused the credential as invalid; send the request again to get a fresh invoice.";
  if (status === 403) return "This API is not active right now.";
  if (status === 404) return "No such endpoint at this gateway, or the API answered 404.";
  if (status === 413) return "The request body is larger than the gateway's 1 MB limit.";
  if (status === 429) return `Too many requests; try again${headers.get("retry-after") ? ` in ${headers.get("retry-after")} s` : " shortly"}.`;
  if (status === 503) return "The API cannot take payments right now (no wallet, or its wallet is unreachable).";
  if (status >= 500) return "The API or the gateway failed.";
  return code === "upstream_rejected" ? "The API rejected the request; the payment stays spent." : null;
}
