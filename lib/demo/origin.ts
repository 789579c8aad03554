// The demo tenant's origin, served by the web app under /api/demo. Like any well-behaved origin
// it verifies the gateway's signature (spec 5.4) with our own SDK helper and refuses the rest.
import type { KeyValueStore } from "@/lib/store/types.ts";
import { verifyGatewayRequest } from "@l402-hub/sdk/origin";
import type { OriginSecrets } from "@/lib/tenants/secrets.ts";

const fortunes = [
  "A watched mempool never clears.",
  "Your next invoice will be paid in full.",
  "Low fees come to those who wait.",
  "Not your keys, not your fortune.",
  "A satoshi saved is a satoshi stacked.",
  "The route you seek has enough inbound liquidity.",
];

export type DemoOriginRequest = { method: string; path: string; search?: string; headers: Headers; rawBody: string };

/** A JSON answer, or an SSE stream (the ticker) whose frames the route writes as they come. */
export type DemoOriginResult = { status: number; body: unknown } | { status: 200; events: (signal: AbortSignal) => AsyncGenerator<string> };

/** An integer query parameter within [min, max], or the default when absent or not a number. */
function boundedInteger(params: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const value = Number.parseInt(params.get(name) ?? "", 10);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

/** Lucky numbers that depend only on the name (FNV-1a seeded), so repeated calls agree. */
export function luckyNumbers(name: string, count: number): number[] {
  let seed = 0x811c9dc5;
  for (const char of name.toLowerCase()) seed = Math.imul(seed ^ char.codePointAt(0)!, 0x01000193) >>> 0;
  const numbers: number[] = [];
  for (let i = 0; i < count; i++) {
    seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) >>> 0;
    numbers.push((seed % 99) + 1);
  }
  return numbers;
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The block ticker: a comment frame at once (spec 4.7: flush on connect), then `count` block
 * events `intervalMs` apart, then an `end` event. Stops when the client goes away.
 */
async function* blockTicker(count: number, intervalMs: number, signal: AbortSignal, now: () => Date): AsyncGenerator<string> {
  yield ": connected\n\n";
  const startHeight = 840_000 + Math.floor(Math.random() * 1000);
  for (let i = 1; i <= count && !signal.aborted; i++) {
    await pause(intervalMs, signal);
    if (signal.aborted) return;
    const block = { height: startHeight + i, txs: 1000 + Math.floor(Math.random() * 3000), time: now().toISOString() };
    yield `event: block\nid: ${block.height}\ndata: ${JSON.stringify(block)}\n\n`;
  }
  if (!signal.aborted) yield `event: end\ndata: ${JSON.stringify({ events: count })}\n\n`;
}

/** Answers a demo origin request: 403 unless signed by our gateway, then the endpoint's JSON or stream. */
export async function answerDemoOrigin(
  request: DemoOriginRequest,
  deps: { secrets: OriginSecrets | null; store: KeyValueStore; now?: Date },
): Promise<DemoOriginResult> {
  if (!deps.secrets) return { status: 503, body: { error: "The demo tenant does not exist" } };
  const pairs = [deps.secrets, ...(deps.secrets.previous ? [deps.secrets.previous] : [])];
  const verdict = await verifyGatewayRequest({
    method: request.method,
    path: request.path,
    query: request.search ?? "",
    headers: Object.fromEntries(request.headers.entries()),
    rawBody: request.rawBody,
    secrets: pairs,
    rememberNonce: (nonce, ttlMs) => deps.store.setIfAbsent(`demo-origin:nonce:${nonce}`, "1", ttlMs),
  });
  if (!verdict.ok) return { status: 403, body: { error: "forbidden", reason: verdict.reason } };
  const now = deps.now ?? new Date();
  if (request.method === "GET" && request.path === "/v1/fortune") {
    return { status: 200, body: { fortune: fortunes[Math.floor(Math.random() * fortunes.length)], servedAt: now.toISOString() } };
  }
  if (request.method === "GET" && request.path === "/v1/ping") return { status: 200, body: { pong: true, time: now.toISOString() } };
  const params = new URLSearchParams(request.search ?? "");
  const lucky = /^\/v1\/lucky\/([^/]+)$/.exec(request.path);
  if (request.method === "GET" && lucky) {
    let name: string;
    try {
      name = decodeURIComponent(lucky[1]).slice(0, 100);
    } catch {
      return { status: 400, body: { error: "bad_request", message: "The name is not valid URL encoding" } };
    }
    return { status: 200, body: { name, numbers: luckyNumbers(name, boundedInteger(params, "count", 1, 10, 3)), servedAt: now.toISOString() } };
  }
  if (request.method === "GET" && request.path === "/v1/ticker") {
    const count = boundedInteger(params, "count", 1, 500, 20);
    const intervalMs = boundedInteger(params, "intervalMs", 50, 5000, 250);
    return { status: 200, events: (signal) => blockTicker(count, intervalMs, signal, () => deps.now ?? new Date()) };
  }
  return { status: 404, body: { error: "not_found" } };
}
