// The demo tenant a fresh embedded install starts with, so the home page and the directory are
// not empty and the whole L402 flow can be tried with curl (README). Idempotent.
import type { Config } from "../config/index.ts";
import type { PrismaClient } from "../db/client.ts";
import type { DevLightningNode } from "../lightning/dev-node.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "../../prisma/factories.ts";

export const demoTenant = {
  slug: "demo",
  name: "Hub Demo API",
  description: "A tiny built-in API that shows the whole L402 flow: one paid endpoint and one free one.",
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
  await prisma.tenant.update({ where: { id: tenantId }, data: { trialStartedAt: new Date() } });
  return true;
}
