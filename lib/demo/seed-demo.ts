// The demo tenant a fresh embedded install starts with, so the home page and the directory are
// not empty and the whole L402 flow can be tried with curl (README). Idempotent.
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";

export const demoTenant = {
  slug: "demo",
  name: "Hub Demo API",
  description: "A tiny built-in API that shows the whole L402 flow: a paid call, a bundle of calls for one payment, a live event stream and a free ping.",
  tags: ["demo", "examples"],
};

/** Where the built-in demo origin is served: by this install's own web app. */
export function demoOriginUrl(config: Pick<Config, "port">): string {
  return `http://127.0.0.1:${config.port}/api/demo`;
}

/** Creates the demo tenant unless it exists; returns true when it was created. */
export async function seedDemoTenant(options: { prisma: PrismaClient; config: Config; devNode: DevLightningNode }): Promise<boolean> {
  const { prisma, config, devNode } = options;
  if (await prisma.tenant.findUnique({ where: { slug: demoTenant.slug }, select: { id: true } })) return false;
  const { tenantId } = await tenantFactory(prisma, config.appSecret, {
    ...demoTenant,
    ownerEmail: "demo@localhost",
    originUrl: demoOriginUrl(config),
  });
  await devWalletFactory(prisma, config.appSecret, tenantId, devNode.nodePubkey);
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/fortune",
    title: "Fortune of the day",
    description: "Returns a short fortune. Costs 1 sat per request.",
    pricingModel: "per_request",
    priceSats: 1,
    freeTryEnabled: true,
    parameters: [],
    exampleResponse: { fortune: "A watched mempool never clears.", servedAt: "2026-01-01T00:00:00.000Z" },
  });
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/ping",
    title: "Ping",
    description: "Free liveness check of the demo origin.",
    parameters: [],
    exampleResponse: { pong: true, time: "2026-01-01T00:00:00.000Z" },
  });
  // A session model (one payment, five calls, X-Session-Token) and a stream (SSE through the
  // gateway), so every part of the API page's try-it has something real to run against.
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/lucky/{name}",
    title: "Lucky numbers",
    description: "Lucky numbers for a name. One payment buys five calls: later calls reuse the session token.",
    pricingModel: "token_bucket",
    priceSats: 1,
    tokenBudget: 5,
    parameters: [
      { name: "name", in: "path", required: true, type: "string", description: "Whose numbers" },
      { name: "count", in: "query", required: false, type: "integer", description: "How many numbers, 1 to 10 (default 3)" },
    ],
    exampleRequest: { query: { count: 3 }, path: { name: "satoshi" } },
    exampleResponse: { name: "satoshi", numbers: [7, 21, 42], servedAt: "2026-01-01T00:00:00.000Z" },
  });
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/ticker",
    title: "Block ticker",
    description: "A live stream of simulated block events (server-sent events). One payment buys one connection.",
    pricingModel: "per_request",
    priceSats: 1,
    streaming: true,
    maxStreamSeconds: 300,
    parameters: [
      { name: "count", in: "query", required: false, type: "integer", description: "Events before the stream ends, 1 to 500 (default 20)" },
      { name: "intervalMs", in: "query", required: false, type: "integer", description: "Milliseconds between events, 50 to 5000 (default 250)" },
    ],
    exampleRequest: { query: { count: 20, intervalMs: 250 } },
    // One event of the stream (SSE frames: `event: block` with this JSON as `data`).
    exampleResponse: { event: "block", data: { height: 840001, txs: 2712, time: "2026-01-01T00:00:00.000Z" } },
  });
  // The install's own API: never billed the platform fee (lib/billing).
  await prisma.tenant.update({ where: { id: tenantId }, data: { trialStartedAt: new Date(), billingExempt: true } });
  return true;
}
