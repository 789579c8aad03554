// With ORIGIN_ALLOW_PRIVATE off, the gateway's origin connections are pinned: an origin that
// points at a private address (saved before the rule, or a DNS answer changed since) is never
// connected to; the caller gets a 502 and pays nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";

let hits = 0;
const t = useGatewayTest({
  env: { ORIGIN_ALLOW_PRIVATE: "false" },
  resetEachTest: false,
  routes: (origin) => {
    for (const path of ["/v1/free", "/v1/paid"]) {
      origin.route(path, (_req, res) => {
        hits += 1;
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    }
  },
});
let gatewayUrl: string;

beforeAll(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free" });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 2 });
  gatewayUrl = `${t.urls[0]}/gw/${slug}`;
});

describe("gateway egress to origins", () => {
  it("never connects to a loopback origin and reverts the payment", async () => {
    expect(t.ctx.config.originAllowPrivate).toBe(false);
    const free = await call(`${gatewayUrl}/v1/free`);
    expect(free.status).toBe(502);
    const { authorization } = await payChallenge(t.devNode, await call(`${gatewayUrl}/v1/paid`));
    const paid = await call(`${gatewayUrl}/v1/paid`, { authorization });
    expect(paid.status).toBe(502);
    expect(header(paid, "x-hub-payment")).toBe("reverted");
    expect(hits).toBe(0);
  });
});
