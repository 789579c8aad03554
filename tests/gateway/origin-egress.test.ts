// With ORIGIN_ALLOW_PRIVATE off, the gateway's origin connections are pinned: an origin that
// points at a private address (saved before the rule, or a DNS answer changed since) is never
// connected to; the caller gets a 502 and pays nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevLightningNode } from "../../lib/lightning/dev-node.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "../../prisma/factories.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { call, header, payChallenge, startGateways } from "../helpers/gateway.ts";
import { startTestOrigin, type TestOrigin } from "../helpers/origin.ts";

let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let gatewayUrl: string;
let close: () => Promise<void>;
let slug: string;
let hits = 0;

beforeAll(async () => {
  ctx = await createTestContext({ ORIGIN_ALLOW_PRIVATE: "false" });
  origin = await startTestOrigin();
  for (const path of ["/v1/free", "/v1/paid"]) {
    origin.route(path, (_req, res) => {
      hits += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  }
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  let tenantId: string;
  ({ tenantId, slug } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url }));
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/free" });
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 2 });
  let urls: string[];
  ({ urls, close } = await startGateways(ctx, devNode, 1));
  gatewayUrl = `${urls[0]}/gw/${slug}`;
});

afterAll(async () => {
  await close?.();
  await origin?.close();
  await ctx?.close();
});

describe("gateway egress to origins", () => {
  it("never connects to a loopback origin and reverts the payment", async () => {
    expect(ctx.config.originAllowPrivate).toBe(false);
    const free = await call(`${gatewayUrl}/v1/free`);
    expect(free.status).toBe(502);
    const { authorization } = await payChallenge(devNode, await call(`${gatewayUrl}/v1/paid`));
    const paid = await call(`${gatewayUrl}/v1/paid`, { authorization });
    expect(paid.status).toBe(502);
    expect(header(paid, "x-hub-payment")).toBe("reverted");
    expect(hits).toBe(0);
  });
});
