// Prepaid credit end to end (spec 2.3, 4.1 rule 7, ../shared/INTEROP.md): X-Hub-Credit buys a sats budget
// usable on every per_request endpoint of one provider, each call burning that endpoint's price.
import { beforeEach, describe, expect, it } from "vitest";
import bolt11 from "bolt11";
import { MAX_CREDIT_SATS } from "@/lib/pricing/quote.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { attenuateAuthorization } from "@/tests/helpers/attenuate.ts";
import { call, header, payChallenge, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { statusRoute } from "@/tests/helpers/origin.ts";

const clock = testClock();

const t = useGatewayTest({
  gateways: 2,
  clock,
  routes: (origin) => {
    for (const path of ["/v1/a", "/v1/b", "/v1/bucket"]) origin.route(path, statusRoute(path));
  },
});

let base: string;
let base2: string;
let otherBase: string;
let tenantId: string;

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  tenantId = tenant.tenantId;
  await webhookSubscriptionFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId);
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/b", pricingModel: "per_request", priceSats: 5 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 5 });
  const other = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, other.tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, other.tenantId, { path: "/v1/a", pricingModel: "per_request", priceSats: 3 });
  base = `${t.urls[0]}/gw/${tenant.slug}`;
  base2 = `${t.urls[1]}/gw/${tenant.slug}`;
  otherBase = `${t.urls[0]}/gw/${other.slug}`;
});

/** Forgeries counted against this client's IP this minute (spec 5.1: five demote it); the count outlives a test. */
async function forgeryStrikes(): Promise<number> {
  return Number((await t.ctx.store.get("rl:forged:127.0.0.1")) ?? (await t.ctx.store.get("rl:forged:::ffff:127.0.0.1")) ?? 0);
}

async function buyCredit(sats: number) {
  const challenge = await call(`${base}/v1/a`, { "x-hub-credit": String(sats) });
  return { challenge, ...(await payChallenge(t.devNode, challenge)) };
}

describe("prepaid credit", () => {
  it("sells the credit as the invoice, echoes creditSats, and burns each endpoint's price until it is spent", async () => {
    const { challenge, authorization, paymentHash } = await buyCredit(20);
    expect(challenge.json).toMatchObject({ error: "Payment Required", amountSats: 20, creditSats: 20 });
    expect(typeof challenge.json.creditSats).toBe("number");
    expect(bolt11.decode(challenge.json.paymentRequest).satoshis).toBe(20);
    expect(await t.ctx.db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ purpose: "credit", amountSats: 20, status: "pending" });

    const steps: [string, string, number, string | undefined][] = [
      [base, "/v1/a", 200, "17"],
      [base2, "/v1/b", 200, "12"],
      [base, "/v1/b", 200, "7"],
      [base2, "/v1/b", 200, "2"],
    ];
    for (const [at, path, status, balance] of steps) {
      const res = await call(`${at}${path}`, { authorization });
      expect([path, res.status, header(res, "x-session-balance"), header(res, "x-hub-payment")]).toEqual([path, status, balance, "charged"]);
    }
    for (const path of ["/v1/b", "/v1/a"]) {
      const spent = await call(`${base}${path}`, { authorization });
      expect([spent.status, header(spent, "x-hub-payment"), header(spent, "x-hub-payment-code")]).toEqual([402, "not_charged", "payment_failed"]);
      expect(spent.json.creditSats).toBeUndefined();
    }
    expect(await t.ctx.db.prisma.credit.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ tenantId, balanceSats: 2, initialSats: 20 });
    const settled = await t.ctx.db.prisma.outboxEvent.findMany({ where: { type: "invoice.settled" } });
    expect(settled).toHaveLength(1);
    expect(settled[0].data).toMatchObject({ paymentHash, amountSats: 20, purpose: "credit", source: "proof" });
    expect(t.origin.received).toHaveLength(4);
  });

  it("answers 400 naming X-Hub-Credit for amounts out of range or on a session endpoint, before any invoice", async () => {
    for (const value of ["0", "-1", "2.5", "lots", "2", String(MAX_CREDIT_SATS + 1)]) {
      const res = await call(`${base}/v1/a`, { "x-hub-credit": value });
      expect(res.status, value).toBe(400);
      expect(res.json.error.message).toMatch(/X-Hub-Credit/);
    }
    const session = await call(`${base}/v1/bucket`, { "x-hub-credit": "100" });
    expect(session.status).toBe(400);
    expect(session.json.error.message).toMatch(/X-Hub-Credit.*per_request/);
    expect(await t.ctx.db.prisma.invoice.count()).toBe(0);
  });

  it("returns the price to the credit when the origin fails and keeps it on another 4xx", async () => {
    const { authorization } = await buyCredit(10);
    for (const status of [500, 429]) {
      const failed = await call(`${base}/v1/a?status=${status}`, { authorization });
      expect([failed.status, header(failed, "x-hub-payment"), header(failed, "x-hub-payment-code"), header(failed, "x-session-balance")]).toEqual([
        status,
        "refunded_to_balance",
        "upstream_failed_retryable",
        "10",
      ]);
    }
    const rejected = await call(`${base}/v1/a?status=422`, { authorization });
    expect([rejected.status, header(rejected, "x-hub-payment"), header(rejected, "x-session-balance")]).toEqual([422, "charged", "7"]);
  });

  it("lapses after CREDIT_TTL_DAYS: the unused rest is not refunded and the proof gets a fresh 402", async () => {
    const { authorization, paymentHash } = await buyCredit(10);
    expect((await call(`${base}/v1/a`, { authorization })).status).toBe(200);
    clock.advance(29 * 86_400_000);
    expect((await call(`${base}/v1/a`, { authorization })).status).toBe(200);
    // The credit row lapses by the database's clock, whatever a gateway's clock says of the token.
    await t.ctx.db.sql.query(`UPDATE "Credit" SET "expiresAt" = now() - interval '1 second' WHERE "paymentHash" = $1`, [paymentHash]);
    const lapsed = await call(`${base}/v1/a`, { authorization });
    expect([lapsed.status, header(lapsed, "x-hub-payment")]).toEqual([402, "not_charged"]);
    // And the token itself lapses by the gateway's.
    clock.advance(2 * 86_400_000);
    const expired = await call(`${base}/v1/a`, { authorization });
    expect([expired.status, header(expired, "x-hub-payment")]).toEqual([402, "not_charged"]);
    expect((await t.ctx.db.prisma.credit.findUniqueOrThrow({ where: { paymentHash } })).balanceSats).toBe(4);
  });

  it("is never usable at another provider nor on a session endpoint: a fresh 402 for that endpoint, not a forgery", async () => {
    // Deployed clients keep credit per host and present it on every endpoint there (on the path
    // form, every provider's), dropping it only on a 402 (issue 26 item 3).
    const { authorization } = await buyCredit(10);
    const strikesBefore = await forgeryStrikes();
    const elsewhere = await call(`${otherBase}/v1/a`, { authorization });
    expect([elsewhere.status, header(elsewhere, "x-hub-payment"), header(elsewhere, "x-hub-payment-code")]).toEqual([402, "not_charged", "payment_failed"]);
    expect(elsewhere.json).toMatchObject({ error: "Payment Required", amountSats: 3 });
    expect(elsewhere.json.creditSats).toBeUndefined();
    const session = await call(`${base}/v1/bucket`, { authorization });
    expect([session.status, header(session, "x-hub-payment"), header(session, "x-hub-payment-code")]).toEqual([402, "not_charged", "payment_failed"]);
    expect(session.json).toMatchObject({ amountSats: 10, model: "token_bucket", tokenBudget: 5 });
    // Each challenge sells that endpoint, at that provider.
    const sold = await t.ctx.db.prisma.invoice.findMany({
      where: { paymentHash: { in: [elsewhere.json.paymentHash, session.json.paymentHash] } },
      include: { endpoint: true },
    });
    expect(sold.map((i) => [i.tenantId === tenantId, i.endpoint?.path, i.purpose]).sort()).toEqual([
      [false, "/v1/a", "per_request"],
      [true, "/v1/bucket", "session"],
    ]);
    // A delegated credit token out of scope is out of scope before its caveats are looked at.
    const delegated = await call(`${base}/v1/bucket`, { authorization: attenuateAuthorization(authorization, ["method=POST"]) });
    expect(delegated.status).toBe(402);
    expect(await forgeryStrikes()).toBe(strikesBefore);
    expect(await t.ctx.db.prisma.credit.count()).toBe(0);
    expect((await call(`${base}/v1/a`, { authorization })).status).toBe(200);
  });

  it("still answers 401 and counts a forgery for a credit token that does not verify", async () => {
    const { authorization } = await buyCredit(10);
    const wrongPreimage = authorization.replace(/:[0-9a-f]{64}$/, `:${"0".repeat(64)}`);
    const strikesBefore = await forgeryStrikes();
    for (const at of [`${base}/v1/a`, `${base}/v1/bucket`, `${otherBase}/v1/a`]) {
      const res = await call(at, { authorization: wrongPreimage });
      expect([res.status, res.json.error.code], at).toEqual([401, "unauthorized"]);
    }
    expect(await forgeryStrikes()).toBe(strikesBefore + 3);
  });

  it("burns exactly the credit under concurrent first use on two gateway instances", async () => {
    const { authorization, paymentHash } = await buyCredit(30);
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => call(`${i % 2 ? base2 : base}/v1/a?i=${i}`, { authorization })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(14);
    const balances = results.filter((r) => r.status === 200).map((r) => Number(header(r, "x-session-balance")));
    expect(balances.sort((a, b) => a - b)).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    expect(await t.ctx.db.prisma.credit.findUniqueOrThrow({ where: { paymentHash } })).toMatchObject({ balanceSats: 0 });
    expect(await t.ctx.db.prisma.outboxEvent.count({ where: { type: "invoice.settled" } })).toBe(1);
    expect(t.origin.received).toHaveLength(10);
  });
});
