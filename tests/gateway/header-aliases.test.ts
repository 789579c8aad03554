// The header names the deployed client SDK uses (signaltech-org/bolthub-sdk, packages/pay): it buys
// credit with `X-Bolthub-Credit`, and reads the payment outcome from `X-Bolthub-Payment` /
// `X-Bolthub-Payment-Code` (its free retry after upstream_failed_retryable and its receipts depend
// on them). The gateway accepts the first as an alias of X-Hub-Credit and sends the others beside
// X-Hub-Payment / X-Hub-Payment-Code, with the same values; none of them crosses to or from origins.
import { beforeEach, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, useGatewayTest, type CallResult } from "@/tests/helpers/gateway.ts";
import { statusRoute } from "@/tests/helpers/origin.ts";

let base: string;

const t = useGatewayTest({
  routes: (origin) => {
    // An origin that tries to speak for the gateway in either namespace.
    for (const path of ["/v1/a", "/v1/b", "/v1/bucket", "/v1/free"]) {
      origin.route(path, statusRoute(path, { "x-bolthub-payment": "reverted", "x-bolthub-payment-code": "upstream_failed_retryable" }));
    }
  },
});

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenant.tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3 });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/b", pricingModel: "per_request", priceSats: 5 });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 5 });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/free" });
  base = `${t.urls[0]}/gw/${tenant.slug}`;
});

/** Both payment header pairs of a response: [X-Hub-Payment, X-Hub-Payment-Code, X-Bolthub-Payment, X-Bolthub-Payment-Code]. */
function paymentPairs(res: CallResult) {
  return [header(res, "x-hub-payment"), header(res, "x-hub-payment-code"), header(res, "x-bolthub-payment"), header(res, "x-bolthub-payment-code")];
}

describe("the deployed client's header names", () => {
  it("buys credit with X-Bolthub-Credit exactly as with X-Hub-Credit", async () => {
    for (const name of ["x-hub-credit", "x-bolthub-credit"]) {
      const challenge = await call(`${base}/v1/a`, { [name]: "20" });
      expect(challenge.json, name).toMatchObject({ error: "Payment Required", amountSats: 20, creditSats: 20 });
      const { authorization, paymentHash } = await payChallenge(t.devNode, challenge);
      expect(await t.ctx.db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ purpose: "credit", amountSats: 20 });
      const first = await call(`${base}/v1/a`, { authorization });
      const second = await call(`${base}/v1/b`, { authorization });
      expect([first.status, header(first, "x-session-balance"), second.status, header(second, "x-session-balance")], name).toEqual([200, "17", 200, "12"]);
    }
  });

  it("takes both credit headers when they agree, and answers 400 naming both when they do not", async () => {
    const agreeing = await call(`${base}/v1/a`, { "x-hub-credit": "20", "x-bolthub-credit": "20" });
    expect([agreeing.status, agreeing.json.creditSats]).toEqual([402, 20]);
    const differing = await call(`${base}/v1/a`, { "x-hub-credit": "20", "x-bolthub-credit": "30" });
    expect([differing.status, differing.json.error.code]).toEqual([400, "bad_request"]);
    expect(differing.json.error.message).toMatch(/X-Hub-Credit.*X-Bolthub-Credit/);
    // A refused amount names the header the client sent.
    const invalid = await call(`${base}/v1/a`, { "x-bolthub-credit": "2" });
    expect([invalid.status, invalid.json.error.message]).toEqual([400, expect.stringMatching(/^X-Bolthub-Credit must be at least 3 sats/)]);
    const session = await call(`${base}/v1/bucket`, { "x-bolthub-credit": "100" });
    expect([session.status, session.json.error.message]).toEqual([
      400,
      expect.stringMatching(/^X-Bolthub-Credit buys prepaid credit for per_request endpoints/),
    ]);
    expect(await t.ctx.db.prisma.invoice.count()).toBe(1);
  });

  it("sends X-Bolthub-Payment and X-Bolthub-Payment-Code beside X-Hub-Payment with the same values", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/a`));
    const failed = await call(`${base}/v1/a?status=503`, { authorization });
    expect([failed.status, ...paymentPairs(failed)]).toEqual([503, "reverted", "upstream_failed_retryable", "reverted", "upstream_failed_retryable"]);
    const served = await call(`${base}/v1/a`, { authorization });
    // The origin's own X-Bolthub-Payment ("reverted") never reaches the client: only the gateway says it.
    expect([served.status, ...paymentPairs(served)]).toEqual([200, "charged", undefined, "charged", undefined]);
    const spent = await call(`${base}/v1/a`, { authorization });
    expect([spent.status, ...paymentPairs(spent)]).toEqual([402, "not_charged", "payment_failed", "not_charged", "payment_failed"]);
    const free = await call(`${base}/v1/free`);
    expect([free.status, ...paymentPairs(free)]).toEqual([200, undefined, undefined, undefined, undefined]);
  });

  it("lets browsers read the aliases and send the credit alias (CORS)", async () => {
    const res = await call(`${base}/v1/a`);
    const exposed = String(header(res, "access-control-expose-headers")).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["X-Hub-Payment", "X-Hub-Payment-Code", "X-Bolthub-Payment", "X-Bolthub-Payment-Code"]));
    const preflight = await fetch(`${base}/v1/a`, { method: "OPTIONS" });
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/X-Hub-Credit, X-Bolthub-Credit/);
  });

  it("never forwards X-Bolthub-* headers to the origin", async () => {
    await call(`${base}/v1/free`, { "x-bolthub-credit": "20", "x-bolthub-payment": "charged", "x-bolthub-anything": "1", "x-other": "kept" });
    expect(t.origin.received).toHaveLength(1);
    const names = Object.keys(t.origin.received[0].headers);
    expect(names.filter((name) => name.startsWith("x-bolthub-"))).toEqual([]);
    expect(t.origin.received[0].headers["x-other"]).toBe("kept");
  });
});
