// POST /api/l402/settlement: a browser that showed a challenge's invoice as a QR code learns that
// it was paid and gets the preimage, but only with that challenge's macaroon. Real gateway, real
// database, dev node wallet; the route handler is called the way Next calls it.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/l402/settlement/route.ts";
import { mintL402Macaroon } from "@/lib/l402/macaroon.ts";
import { lookupChallengeSettlement } from "@/lib/payments/challenge-settlement.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { call as callGateway, header, startGateways, type CallResult } from "@/tests/helpers/gateway.ts";
import { call, useApiContext } from "./helpers.ts";

const api = useApiContext();
const settlement = (body: unknown) => call(POST, { method: "POST", path: "/l402/settlement", body });

let gateway: Awaited<ReturnType<typeof startGateways>>;
let base: string;
let tenantId: string;

beforeAll(async () => {
  gateway = await startGateways(api.test(), api.server().devNode!, 1);
});
afterAll(async () => {
  await gateway?.close();
});
beforeEach(async () => {
  gateway.gateways.forEach((g) => g.tenants.invalidate());
  const t = api.test();
  const tenant = await tenantFactory(t.db.prisma, t.config.appSecret, { originUrl: "http://127.0.0.1:9/unused", name: "Weather Co" });
  tenantId = tenant.tenantId;
  await webhookSubscriptionFactory(t.db.prisma, t.config.appSecret, tenantId);
  await devWalletFactory(t.db.prisma, t.config.appSecret, tenantId, api.server().devNode!.nodePubkey);
  await endpointFactory(t.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 7 });
  base = `${gateway.urls[0]}/gw/${tenant.slug}`;
});

/** A fresh 402 from the real gateway: its macaroon, invoice and payment hash. */
async function challenge(): Promise<{ macaroon: string; invoice: string; paymentHash: string; res: CallResult }> {
  const res = await callGateway(`${base}/v1/paid`);
  expect(res.status, res.text).toBe(402);
  const macaroon = /macaroon="([^"]+)"/.exec(header(res, "www-authenticate") ?? "")![1];
  return { macaroon, invoice: res.json.paymentRequest, paymentHash: res.json.paymentHash, res };
}

const sha256 = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");

describe("POST /api/l402/settlement", () => {
  it("reports an unpaid invoice as open and releases nothing", async () => {
    const { macaroon, paymentHash } = await challenge();
    const res = await settlement({ macaroon });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ state: "open", paymentHash, preimage: null });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("releases the preimage of a paid invoice to its macaroon's holder, and the proof then pays the call", async () => {
    const { macaroon, invoice, paymentHash } = await challenge();
    await api.server().devNode!.pay(invoice);
    const res = await settlement({ macaroon });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ state: "settled", paymentHash, preimage: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(sha256(res.body.preimage)).toBe(paymentHash);
    // Learned of settlement: recorded once, as the worker would.
    const row = await api.test().db.prisma.invoice.findUnique({ where: { paymentHash } });
    expect(row?.status).toBe("settled");
    expect(await api.test().db.prisma.outboxEvent.count({ where: { tenantId, type: "invoice.settled" } })).toBe(1);
    // Asking again is harmless and records nothing new.
    expect((await settlement({ macaroon })).body.preimage).toBe(res.body.preimage);
    expect(await api.test().db.prisma.outboxEvent.count({ where: { tenantId, type: "invoice.settled" } })).toBe(1);

    const paid = await callGateway(`${base}/v1/paid`, { authorization: `L402 ${macaroon}:${res.body.preimage}` });
    expect(paid.status).toBe(502); // the origin address is unreachable: the proof itself was accepted
    expect(header(paid, "x-hub-payment")).toBe("reverted");
  });

  it("refuses a forged macaroon for a paid invoice: tampered caveats, another secret, garbage", async () => {
    const { macaroon, invoice, paymentHash } = await challenge();
    await api.server().devNode!.pay(invoice);

    const bytes = Buffer.from(macaroon, "base64");
    bytes.write("amount_sats=1", bytes.indexOf("amount_sats=7"), "utf8");
    const tampered = await settlement({ macaroon: bytes.toString("base64") });
    expect(tampered.status).toBe(401);
    expect(JSON.stringify(tampered.body)).not.toMatch(/[0-9a-f]{64}/);

    // A well-formed token for the same payment hash, signed by someone without our APP_SECRET.
    const forged = mintL402Macaroon({
      appSecret: "someone-elses-secret-0123456789abcdef",
      paymentHash,
      tenantId,
      scope: { kind: "credit" },
      amountSats: 7,
      validUntil: new Date(Date.now() + 600_000),
    });
    const refused = await settlement({ macaroon: forged.macaroon });
    expect(refused).toMatchObject({ status: 401, body: { error: { code: "unauthorized" } } });
    expect(JSON.stringify(refused.body)).not.toContain(paymentHash);

    expect((await settlement({ macaroon: "AgEEbHNhdAJCAAA=" })).status).toBe(401);
    expect((await settlement({})).body.error.details.fields[0].field).toBe("macaroon");
  });

  it("never releases another challenge's preimage: a macaroon answers for its own invoice only", async () => {
    const paidOne = await challenge();
    const unpaidOne = await challenge();
    await api.server().devNode!.pay(paidOne.invoice);
    expect((await settlement({ macaroon: unpaidOne.macaroon })).body).toEqual({ state: "open", paymentHash: unpaidOne.paymentHash, preimage: null });

    // A genuine token of ANOTHER tenant naming this tenant's paid payment hash: scoped out (404).
    const t = api.test();
    const other = await tenantFactory(t.db.prisma, t.config.appSecret, { originUrl: "http://127.0.0.1:9/unused", name: "Other Co" });
    const crossTenant = mintL402Macaroon({
      appSecret: t.config.appSecret,
      paymentHash: paidOne.paymentHash,
      tenantId: other.tenantId,
      scope: { kind: "credit" },
      amountSats: 7,
      validUntil: new Date(Date.now() + 600_000),
    });
    const res = await settlement({ macaroon: crossTenant.macaroon });
    expect(res).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
  });

  it("releases nothing for an expired token, even when its invoice was paid", async () => {
    const { invoice, paymentHash } = await challenge();
    await api.server().devNode!.pay(invoice);
    const t = api.test();
    const expired = mintL402Macaroon({
      appSecret: t.config.appSecret,
      paymentHash,
      tenantId,
      scope: { kind: "credit" },
      amountSats: 7,
      validUntil: new Date(Date.now() - 1000),
    });
    expect((await settlement({ macaroon: expired.macaroon })).body).toEqual({ state: "expired", paymentHash, preimage: null });
  });

  it("bounds wallet lookups per challenge (429 with retryAfterSeconds)", async () => {
    const { macaroon } = await challenge();
    const s = api.server();
    const ask = () =>
      lookupChallengeSettlement({
        prisma: s.db.prisma,
        store: s.store,
        appSecret: s.config.appSecret,
        wallets: s.wallets,
        macaroon,
        clientIp: "192.0.2.1",
        lookupsPerMinute: 2,
      });
    await ask();
    await ask();
    await expect(ask()).rejects.toMatchObject({ code: "rate_limited", details: { retryAfterSeconds: expect.any(Number) } });
  });
});
