// Shared pieces of the gateway integration tests: real gateway instances on one database, an
// injectable clock, plain HTTP calls, and paying a 402 with the dev node.
import { expect } from "vitest";
import { request } from "undici";
import { createGateway, type Gateway, type GatewayOptions } from "../../lib/gateway/server.ts";
import type { DevLightningNode } from "../../lib/lightning/dev-node.ts";
import { createLogger } from "../../lib/logging/logger.ts";
import type { TestContext } from "./context.ts";

/** A clock the tests move forward: real time plus an offset, shared by every gateway of a file. */
export type TestClock = { now: () => number; advance: (ms: number) => void; reset: () => void };

/** A fresh clock at real time; advance() moves every gateway that was given it. */
export function testClock(): TestClock {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms), reset: () => void (offset = 0) };
}

/** Rate limits out of the way: these files test payments (tests/gateway/rate-limits.test.ts tests limits). */
export const noRateLimits = { endpointPerMinute: 1e6, globalPerMinute: 1e6, credentialedPerMinute: 1e6, forgeriesBeforeDemotion: 1e6, demotionMs: 1, challengesPerMinute: 1e6, tenantLookupsPerMinute: 1e6 };

/** Starts `count` gateway instances on the context's database and store (what a load balancer spreads over). */
export async function startGateways(
  ctx: TestContext,
  devNode: DevLightningNode,
  count: number,
  options: Partial<GatewayOptions> = {},
): Promise<{ gateways: Gateway[]; urls: string[]; close: () => Promise<void> }> {
  const gateways: Gateway[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const gateway = createGateway({
      config: ctx.config,
      prisma: ctx.db.prisma,
      pg: ctx.db.pg,
      store: ctx.store,
      devNode,
      log: createLogger(process.env.TEST_LOG ? "debug" : "silent"),
      rateLimits: noRateLimits,
      ...options,
    });
    urls.push(`http://127.0.0.1:${await gateway.listen(0, "127.0.0.1")}`);
    gateways.push(gateway);
  }
  return { gateways, urls, close: async () => void (await Promise.all(gateways.map((g) => g.close()))) };
}

/** A response read whole: status, headers, text and JSON (null when the body is not JSON). */
export type CallResult = { status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any };

/** One HTTP call, body read as text (and JSON when it parses). */
export async function call(url: string, headers: Record<string, string | string[]> = {}, method: "GET" | "POST" = "GET", body?: string): Promise<CallResult> {
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** A header as one string (undici gives arrays for repeated headers). */
export function header(result: CallResult, name: string): string | undefined {
  const value = result.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Pays a 402 with the dev node; returns the Authorization value and the payment hash. */
export async function payChallenge(devNode: DevLightningNode, challenge: CallResult): Promise<{ authorization: string; paymentHash: string }> {
  expect(challenge.status, challenge.text).toBe(402);
  const macaroon = /macaroon="([^"]+)"/.exec(header(challenge, "www-authenticate") ?? "")![1];
  const { preimage } = await devNode.pay(challenge.json.paymentRequest);
  return { authorization: `L402 ${macaroon}:${preimage}`, paymentHash: challenge.json.paymentHash };
}
