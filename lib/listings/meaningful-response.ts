// What counts as a meaningful paid answer (pure; docs/decisions.md): a 2xx whose body is non-empty
// and parses as its Content-Type says: JSON that holds something (not {}, [], null or ""), text that
// is not blank, a stream that opened and sent an event, any other type with at least one byte.
import type { ReviewResponse } from "./review-http.ts";

/** null when the answer is meaningful, else why not. */
export function meaninglessReason(res: Pick<ReviewResponse, "status" | "mediaType" | "body" | "truncated" | "firstEvent">): string | null {
  if (res.status < 200 || res.status > 299) return `answered ${res.status}, not a 2xx`;
  if (res.mediaType === "text/event-stream") return res.firstEvent ? null : "the stream opened but sent no event within the time limit";
  if (res.body.length === 0) return "the body is empty";
  const text = res.body.toString("utf8");
  if (res.mediaType === "application/json" || res.mediaType.endsWith("+json")) {
    // Beyond the read cap the document cannot be parsed here; its size already says it holds something.
    if (res.truncated) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return `the body is not valid JSON although Content-Type says ${res.mediaType}`;
    }
    const empty =
      value === null ||
      value === "" ||
      (Array.isArray(value) && value.length === 0) ||
      (typeof value === "object" && value !== null && Object.keys(value).length === 0);
    return empty ? `the JSON body is empty (${text.trim().slice(0, 20)})` : null;
  }
  if (res.mediaType.startsWith("text/") || res.mediaType === "") return text.trim() === "" ? "the body is blank" : null;
  return null;
}
