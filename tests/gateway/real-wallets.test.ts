// The gateway with real wallet backends (against faithful local fakes): invoices come from the
// provider's own wallet, a paid proof is served, and the worker learns of settlement from it.
import bolt11 from "bolt11";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { sealSecret } from "../../lib/crypto/secret-box.ts";
import { createGateway, type Gateway } from "../../lib/gateway/server.ts";
import { FakeLnbits } from "../fakes/lightning/lnbits.ts";
import { FakeNostrRelay } from "../fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService } from "../fakes/lightning/nwc-wallet-service.ts";
import { LOOPBACK_WALLET_POLICY, LOOPBACK_WALLET_TARGETS } from "../fakes/lightning/loopback-policy.ts";
import { createLogger } from "../../lib/logging/logger.ts";
import { pollInvoiceSettlements } from "../../lib/payments/record-settlement.ts";
import { openWalletBackend } from "../../lib/wallets/open-wallet.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "../../prisma/factories.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { json, startTestOrigin, type TestOrigin } from "../helpers/origin.ts";

let ctx: TestContext;
let origin: TestOrigin;
let gateway: Gateway;
let port: number;
let relay: FakeNostrRelay;
let nwc: FakeNwcWalletService;
let lnbits: FakeLnbits;

beforeAll(async () => {
  ctx = await createTestContext({ WALLET_ALLOWED_TARGETS: LOOPBACK_WALLET_TARGETS });
  origin = await startTestOrigin();
  origin.route("/v1/data", json(200, { data: 1 }));
  relay = await FakeNostrRelay.start();
  nwc = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption: ["nip44_v2", "nip04"] });
  lnbits = await FakeLnbits.start();
  gateway = createGateway({ config: ctx.config, prisma: ctx.db.prisma, store: ctx.store, devNode: null, log: createLogger("silent") });
  port = await gateway.listen(0, "127.0.0.1");
});

afterAll(async () => {
  await gateway?.close();
  await nwc?.close();
  await relay?.close();
  await lnbits?.close();
  await origin?.close();
  await ctx?.close();
});

async function tenantWithWallet(type: "nwc" | "lnbits", credentials: object) {
  const { tenantId, slug } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  await webhookSubscriptionFactory(ctx.db.prisma, ctx.config.appSecret, tenantId);
  await ctx.db.prisma.wallet.create({ data: { tenantId, type, credentialsEnc: sealSecret(ctx.config.appSecret, JSON.stringify(credentials)) } });
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/data", pricingModel: "per_request", priceSats: 13 });
  return { tenantId, base: `http://127.0.0.1:${port}/gw/${slug}` };
}

describe.each([
  ["nwc", () => ({ connectionUri: nwc.connectionUri() }), () => nwc.node, (hash: string) => nwc.markPaid(hash)],
  ["lnbits", () => ({ url: lnbits.url, invoiceKey: lnbits.invoiceKey }), () => lnbits.node, (hash: string) => lnbits.markPaid(hash)],
] as const)("a tenant paid through %s", (type, credentials, node, markPaid) => {
  it("gets challenges from its own wallet, serves the paid call and records the wallet's settlement", async () => {
    const { tenantId, base } = await tenantWithWallet(type, credentials());
    const challenge = await request(`${base}/v1/data`);
    expect(challenge.statusCode).toBe(402);
    const body = (await challenge.body.json()) as { paymentRequest: string; paymentHash: string; amountSats: number };
    const decoded = bolt11.decode(body.paymentRequest);
    expect(decoded.satoshis).toBe(13);
    expect(decoded.payeeNodeKey).toBe(node().nodePubkey);

    // The payer pays the provider's wallet; the worker hears about it from the wallet.
    const paid = markPaid(body.paymentHash);
    const { recorded } = await pollInvoiceSettlements({
      prisma: ctx.db.prisma,
      walletFor: async (id) => {
        const wallet = await ctx.db.prisma.wallet.findUniqueOrThrow({ where: { tenantId: id } });
        return openWalletBackend({ appSecret: ctx.config.appSecret, wallet, devNode: null, targetPolicy: LOOPBACK_WALLET_POLICY });
      },
    });
    expect(recorded).toBe(1);
    const events = await ctx.db.prisma.outboxEvent.findMany({ where: { tenantId, type: "invoice.settled" } });
    expect(events.map((e) => (e.data as { source: string }).source)).toEqual(["wallet"]);

    const header = [challenge.headers["www-authenticate"]].flat()[0] as string;
    const macaroon = /macaroon="([^"]+)"/.exec(header)![1];
    const served = await request(`${base}/v1/data`, { headers: { authorization: `L402 ${macaroon}:${paid.preimage}` } });
    expect(served.statusCode).toBe(200);
    expect(served.headers["x-hub-payment"]).toBe("charged");
    await served.body.dump();
    // The wallet already reported it: the proof does not add a second event.
    expect(await ctx.db.prisma.outboxEvent.count({ where: { tenantId, type: "invoice.settled" } })).toBe(1);
  });
});
