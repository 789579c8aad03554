// The gateway with real wallet backends (against faithful local fakes): invoices come from the
// provider's own wallet, a paid proof is served, and the worker learns of settlement from it.
import bolt11 from "bolt11";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { LOOPBACK_WALLET_POLICY, LOOPBACK_WALLET_TARGETS } from "@/tests/fakes/lightning/loopback-policy.ts";
import { pollInvoiceSettlements } from "@/lib/payments/record-settlement.ts";
import { openWalletBackend } from "@/lib/wallets/open-wallet.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let relay: FakeNostrRelay;
let nwc: FakeNwcWalletService;
let lnbits: FakeLnbits;

beforeAll(async () => {
  relay = await FakeNostrRelay.start();
  nwc = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption: ["nip44_v2", "nip04"] });
  lnbits = await FakeLnbits.start();
});

afterAll(async () => {
  await nwc?.close();
  await relay?.close();
  await lnbits?.close();
});

// Registered after the wallets' hooks: after hooks run in reverse, so its gateway closes before
// the wallets do.
// The gateway pays through the tenants' own wallets (no dev node), under the default rate limits.
const t = useGatewayTest({
  env: { WALLET_ALLOWED_TARGETS: LOOPBACK_WALLET_TARGETS },
  devNode: false,
  gatewayOptions: { rateLimits: {} },
  resetEachTest: false,
  routes: (origin) => origin.route("/v1/data", json(200, { data: 1 })),
});

async function tenantWithWallet(type: "nwc" | "lnbits", credentials: object) {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await webhookSubscriptionFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId);
  await t.ctx.db.prisma.wallet.create({ data: { tenantId, type, credentialsEnc: sealSecret(t.ctx.config.appSecret, JSON.stringify(credentials)) } });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/data", pricingModel: "per_request", priceSats: 13 });
  return { tenantId, base: `${t.urls[0]}/gw/${slug}` };
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
    // The caller owns the backends walletFor returns: this test closes what it opened.
    const opened: ReturnType<typeof openWalletBackend>[] = [];
    const { recorded } = await pollInvoiceSettlements({
      prisma: t.ctx.db.prisma,
      walletFor: async (id) => {
        const wallet = await t.ctx.db.prisma.wallet.findUniqueOrThrow({ where: { tenantId: id } });
        const backend = openWalletBackend({ appSecret: t.ctx.config.appSecret, wallet, devNode: null, targetPolicy: LOOPBACK_WALLET_POLICY });
        opened.push(backend);
        return backend;
      },
    });
    await Promise.all(opened.map((backend) => backend.close?.()));
    expect(recorded).toBe(1);
    const events = await t.ctx.db.prisma.outboxEvent.findMany({ where: { tenantId, type: "invoice.settled" } });
    expect(events.map((e) => (e.data as { source: string }).source)).toEqual(["wallet"]);

    const header = [challenge.headers["www-authenticate"]].flat()[0] as string;
    const macaroon = /macaroon="([^"]+)"/.exec(header)![1];
    const served = await request(`${base}/v1/data`, { headers: { authorization: `L402 ${macaroon}:${paid.preimage}` } });
    expect(served.statusCode).toBe(200);
    expect(served.headers["x-hub-payment"]).toBe("charged");
    await served.body.dump();
    // The wallet already reported it: the proof does not add a second event.
    expect(await t.ctx.db.prisma.outboxEvent.count({ where: { tenantId, type: "invoice.settled" } })).toBe(1);
  });
});
