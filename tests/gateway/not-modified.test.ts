// An origin's 304 Not Modified through the gateway (the market API's /v1/verdict?view=summary with
// If-None-Match, docs/market-verdict.md): the gateway forwards If-None-Match, relays the 304 with
// its ETag and no body, and charges it like any answer that is not refunded (spec 1 §7.3 refunds
// only 5xx, 408, 429 and unreachable origins): the origin did the work of answering "unchanged",
// and a 304 that refunded would let one proof poll forever. It is a paid request, not a served one,
// so the platform fee (2xx only) does not count it.
import { beforeEach, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";

const etag = 'W/"verdict-QUIET-neutral-1"';

const t = useGatewayTest({
  routes: (origin) => {
    origin.route("/v1/verdict", (req, res) => {
      const headers = { etag, "cache-control": "no-cache" };
      if (req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
      res.writeHead(200, { ...headers, "content-type": "application/json" }).end(JSON.stringify({ state: "QUIET" }));
    });
  },
});

let base: string;
beforeEach(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/verdict", pricingModel: "per_request", priceSats: 15 });
  base = `${t.urls[0]}/gw/${slug}`;
});

describe("an origin's 304 through the gateway", () => {
  it("is relayed with its ETag and no body, charged, and the proof is spent", async () => {
    const url = `${base}/v1/verdict?view=summary`;
    const first = await call(url);
    const { authorization } = await payChallenge(t.devNode, first);
    const fresh = await call(url, { authorization });
    expect([fresh.status, header(fresh, "etag"), fresh.json]).toEqual([200, etag, { state: "QUIET" }]);

    const challenge = await call(url, { "if-none-match": etag });
    expect(challenge.status).toBe(402);
    const paid = await payChallenge(t.devNode, challenge);
    const notModified = await call(url, { authorization: paid.authorization, "if-none-match": etag });
    expect([notModified.status, header(notModified, "etag"), notModified.text, header(notModified, "x-hub-payment")]).toEqual([304, etag, "", "charged"]);
    expect(t.origin.received.at(-1)?.headers["if-none-match"]).toBe(etag);

    // Charged: the same proof does not buy a second answer.
    const reused = await call(url, { authorization: paid.authorization, "if-none-match": etag });
    expect(reused.status).toBe(402);
    const proof = await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash: paid.paymentHash } });
    expect(proof.state).toBe("consumed");
  });
});
