// The header names the deployed client SDK uses (signaltech-org/bolthub-sdk, packages/pay): it buys
// credit with `X-Bolthub-Credit`, and reads the payment outcome from `X-Bolthub-Payment` /
// `X-Bolthub-Payment-Code` (its free retry after upstream_failed_retryable and its receipts depend
// on them). The gateway accepts the first as an alias of X-Hub-Credit and sends the others beside
// X-Hub-Payment / X-Hub-Payment-Code, with the same values; none of them crosses to or from origins.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Gateway } from "../../lib/gateway/server.ts";
import { DevLightningNode } from "../../lib/lightning/dev-node.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "../../prisma/factories.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { call, header, payChallenge, startGateways, type CallResult } from "../helpers/gateway.ts";
import { startTestOrigin, type TestOrigin } from "../helpers/origin.ts";

let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let gateways: Gateway[];
let urls: string[];
let closeGateways: () => Promise<void>;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  origin = await startTestOrigin();
  for (const path of ["/v1/a", "/v1/b", "/v1/bucket", "/v1/free"]) {
    origin.route(path, (req, res) => {
      const status = Number(new URL(req.url, "http://o").searchParams.get("status") ?? 200);
      // An origin that tries to speak for the gateway in either namespace.
      res.writeHead(status, { "content-type": "application/json", "x-bolthub-payment": "reverted", "x-bolthub-payment-code": "upstream_failed_retryable" });
      res.end(JSON.stringify({ path }));
    });
  }
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  ({ gateways, urls, close: closeGateways } = await startGateways(ctx, devNode, 1));
});

afterAll(async () => {
  await closeGateways?.();
  await origin?.close();
  await ctx?.close();
});

beforeEach(async () => {
  await ctx.reset();
  gateways.forEach((g) => g.tenants.invalidate());
  origin.received.length = 0;
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenant.tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3 });
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/b", pricingModel: "per_request", priceSats: 5 });
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 5 });
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/free" });
  base = `${urls[0]}/gw/${tenant.slug}`;
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
      const { authorization, paymentHash } = await payChallenge(devNode, challenge);
      expect(await ctx.db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ purpose: "credit", amountSats: 20 });
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
    expect([session.status, session.json.error.message]).toEqual([400, expect.stringMatching(/^X-Bolthub-Credit buys prepaid credit for per_request endpoints/)]);
    expect(await ctx.db.prisma.invoice.count()).toBe(1);
  });

  it("sends X-Bolthub-Payment and X-Bolthub-Payment-Code beside X-Hub-Payment with the same values", async () => {
    const { authorization } = await payChallenge(devNode, await call(`${base}/v1/a`));
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
    expect(origin.received).toHaveLength(1);
    const names = Object.keys(origin.received[0].headers);
    expect(names.filter((name) => name.startsWith("x-bolthub-"))).toEqual([]);
    expect(origin.received[0].headers["x-other"]).toBe("kept");
  });
});
