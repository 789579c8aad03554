// The demo tenant's origin, served by the web app under /api/demo. Like any well-behaved origin
// it verifies the gateway's signature (spec 5.4) with our own SDK helper and refuses the rest.
import type { KeyValueStore } from "../store/types.ts";
import { verifyGatewayRequest } from "../sdk/origin-signature.ts";
import type { OriginSecrets } from "../tenants/secrets.ts";

const fortunes = [
  "A watched mempool never clears.",
  "Your next invoice will be paid in full.",
  "Low fees come to those who wait.",
  "Not your keys, not your fortune.",
  "A satoshi saved is a satoshi stacked.",
  "The route you seek has enough inbound liquidity.",
];

export type DemoOriginRequest = { method: string; path: string; headers: Headers; rawBody: string };

/** Answers a demo origin request: 403 unless signed by our gateway, then the endpoint's JSON. */
export async function answerDemoOrigin(
  request: DemoOriginRequest,
  deps: { secrets: OriginSecrets | null; store: KeyValueStore; now?: Date },
): Promise<{ status: number; body: unknown }> {
  if (!deps.secrets) return { status: 503, body: { error: "The demo tenant does not exist" } };
  const pairs = [deps.secrets, ...(deps.secrets.previous ? [deps.secrets.previous] : [])];
  const verdict = await verifyGatewayRequest({
    method: request.method,
    path: request.path,
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
  return { status: 404, body: { error: "not_found" } };
}
