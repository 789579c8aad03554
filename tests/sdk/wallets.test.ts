// The SDK's wallet adapters paying a real gateway through the faithful local fakes of each wallet's
// protocol (tests/fakes/lightning): LND REST, LNbits (1.x and legacy answers), phoenixd and NWC
// (NIP-44 and NIP-04 wallets) over a real Nostr relay. Each fake's outgoing payments travel over the
// dev node, the tests' Lightning network, to the gateway's invoice. WebLN: a provider object paying
// through the dev pay route, as the site's dev-wallet shim does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Gateway } from "@/lib/gateway/server.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { FakeLnd, LND_INVOICE_MACAROON_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { FakePhoenixd } from "@/tests/fakes/lightning/phoenixd.ts";
import { createL402Client, L402Error, lnbitsWallet, lndRestWallet, nwcWallet, phoenixdWallet, weblnWallet, type L402Wallet } from "@l402-hub/sdk/client";
import { walletFromEnv } from "@l402-hub/sdk/mcp";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { startGateways } from "@/tests/helpers/gateway.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { startDevPayServer, type DevPayServer } from "./dev-pay-server.ts";

let ctx: TestContext;
let origin: TestOrigin;
let devNode: DevLightningNode;
let payServer: DevPayServer;
let urls: string[];
let gateways: Gateway[];
let closeGateways: () => Promise<void>;
let relay: FakeNostrRelay;

beforeAll(async () => {
  ctx = await createTestContext();
  origin = await startTestOrigin();
  origin.route("/v1/paid", json(200, { ok: true }));
  devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
  payServer = await startDevPayServer(ctx, devNode);
  ({ urls, gateways, close: closeGateways } = await startGateways(ctx, devNode, 1));
  relay = await FakeNostrRelay.start();
});

afterAll(async () => {
  await closeGateways?.();
  await relay?.close();
  await payServer?.close();
  await origin?.close();
  await ctx?.close();
});

let paidUrl: string;
beforeEach(async () => {
  await ctx.reset();
  gateways.forEach((g) => g.tenants.invalidate());
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenant.tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenant.tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 6 });
  paidUrl = `${urls[0]}/gw/${tenant.slug}/v1/paid`;
});

/** The tests' Lightning network: the dev node settles the gateway's invoice and reveals the preimage. */
const network = (invoice: string) => devNode.pay(invoice);

const settledInvoices = () => ctx.db.prisma.devNodeInvoice.count({ where: { settledAt: { not: null } } });

/** Pays one call through the wallet and checks the gateway served it. */
async function payOnce(wallet: L402Wallet) {
  const sdk = createL402Client({ wallet, budgetSats: 100 });
  const res = await sdk.fetch(paidUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-hub-payment")).toBe("charged");
  expect(sdk.spentSats).toBe(6);
  expect(await settledInvoices()).toBe(1);
  return sdk;
}

/** A call whose payment the wallet refuses: a payment_failed error and nothing spent. */
async function expectPaymentFailed(wallet: L402Wallet, message: RegExp) {
  const sdk = createL402Client({ wallet, budgetSats: 100 });
  const settledBefore = await settledInvoices();
  const error = await sdk.fetch(paidUrl).then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(L402Error);
  expect((error as L402Error).code).toBe("payment_failed");
  expect((error as L402Error).message).toMatch(message);
  expect(sdk.spentSats).toBe(0);
  expect(await settledInvoices()).toBe(settledBefore);
}

describe("LND REST", () => {
  it("pays with SendPaymentSync and an offchain:write macaroon; reports routing failures and missing permissions", async () => {
    const lnd = await FakeLnd.start();
    try {
      await expectPaymentFailed(lndRestWallet({ url: lnd.url, macaroonHex: lnd.adminMacaroonHex }), /lnd: unable to find a path/);
      lnd.network = network;
      await expectPaymentFailed(lndRestWallet({ url: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_INVOICE_MACAROON_PERMISSIONS) }), /lnd: 500 permission denied/);
      await payOnce(lndRestWallet({ url: lnd.url, macaroonHex: lnd.adminMacaroonHex }));
      const request = lnd.requests.at(-1)!;
      expect([request.method, request.path, request.headers["grpc-metadata-macaroon"]]).toEqual(["POST", "/v1/channels/transactions", lnd.adminMacaroonHex]);
      expect(lnd.sent).toHaveLength(1);
    } finally {
      await lnd.close();
    }
  });
});

describe("LNbits", () => {
  for (const style of ["v1", "legacy"] as const) {
    it(`pays with out:true and the admin key (${style} answers)`, async () => {
      const lnbits = await FakeLnbits.start({ style });
      lnbits.network = network;
      try {
        await expectPaymentFailed(lnbitsWallet({ url: lnbits.url, adminKey: lnbits.invoiceKey }), /lnbits: 401 Admin key required/);
        await payOnce(lnbitsWallet({ url: lnbits.url, adminKey: lnbits.adminKey }));
        const pay = lnbits.requests.find((r) => r.method === "POST")!;
        expect(JSON.parse(pay.body)).toEqual({ out: true, bolt11: expect.stringMatching(/^lnbcrt/) });
        // Legacy LNbits answers without the preimage: the adapter reads it from the payment's status.
        expect(lnbits.requests.some((r) => r.method === "GET")).toBe(style === "legacy");
      } finally {
        await lnbits.close();
      }
    });
  }
});

describe("phoenixd", () => {
  it("pays with /payinvoice and the full-access password; the limited one is refused", async () => {
    const phoenixd = await FakePhoenixd.start();
    phoenixd.network = network;
    try {
      await expectPaymentFailed(phoenixdWallet({ url: phoenixd.url, password: phoenixd.limitedPassword }), /phoenixd: 401/);
      await payOnce(phoenixdWallet({ url: phoenixd.url, password: phoenixd.password }));
      const request = phoenixd.requests.at(-1)!;
      expect([request.path, request.headers["content-type"]]).toEqual(["/payinvoice", "application/x-www-form-urlencoded"]);
      expect(new URLSearchParams(request.body).get("invoice")).toMatch(/^lnbcrt/);
    } finally {
      await phoenixd.close();
    }
  });
});

describe("NWC", () => {
  for (const encryption of [["nip44_v2", "nip04"], null] as const) {
    it(`pays with pay_invoice over a relay (${encryption ? "nip44_v2 wallet" : "nip04-only wallet"})`, async () => {
      const service = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption: encryption ? [...encryption] : null });
      service.network = network;
      const wallet = nwcWallet({ connection: service.connectionUri(), WebSocket, timeoutMs: 10_000 });
      try {
        await payOnce(wallet);
        const request = service.requests.find((r) => r.method === "pay_invoice")!;
        expect(request.encryption).toBe(encryption ? "nip44_v2" : "nip04");
        expect(request.params.invoice).toMatch(/^lnbcrt/);
        expect(service.paid).toHaveLength(1);
      } finally {
        wallet.close();
        await service.close();
      }
    });
  }

  it("reports the wallet's NIP-47 error and pays nothing; HUB_WALLET takes the connection string", async () => {
    const service = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption: ["nip44_v2"] });
    const wallet = walletFromEnv({ HUB_WALLET: service.connectionUri(["get_info"]) })!;
    try {
      await expectPaymentFailed(wallet, /nwc: RESTRICTED/);
    } finally {
      await wallet.close?.();
      await service.close();
    }
  });
});

describe("WebLN", () => {
  it("enables the provider once and pays with sendPayment", async () => {
    let enabled = 0;
    const provider = {
      enable: async () => void enabled++,
      sendPayment: async (paymentRequest: string) => {
        const res = await fetch(payServer.payUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ invoice: paymentRequest }),
        });
        return (await res.json()) as { preimage: string };
      },
    };
    const sdk = await payOnce(weblnWallet(provider));
    expect((await sdk.fetch(paidUrl)).status).toBe(200);
    expect(enabled).toBe(1);
    await expectPaymentFailed(weblnWallet(), /no WebLN provider/);
  });
});

describe("HUB_WALLET", () => {
  it("builds the documented wallets from their connection strings and rejects malformed ones", () => {
    expect(walletFromEnv({})).toBeNull();
    expect(walletFromEnv({ HUB_WALLET: "nostr+walletconnect://<your wallet connection string>" })).toBeNull();
    expect(walletFromEnv({ HUB_WALLET: "dev", HUB_DEV_WALLET_URL: payServer.payUrl })!.name).toBe("dev");
    expect(() => walletFromEnv({ HUB_WALLET: "dev" })).toThrow(/HUB_DEV_WALLET_URL/);
    expect(walletFromEnv({ HUB_WALLET: "lnbits+https://adminkey@lnbits.example.com" })!.name).toBe("lnbits");
    expect(walletFromEnv({ HUB_WALLET: "lnd+https://0201036c6e64@127.0.0.1:8080" })!.name).toBe("lnd");
    expect(walletFromEnv({ HUB_WALLET: "phoenixd+http://:secret@127.0.0.1:9740" })!.name).toBe("phoenixd");
    expect(() => walletFromEnv({ HUB_WALLET: "lnd+https://not-hex@127.0.0.1:8080" })).toThrow(/macaroon must be hex/);
    expect(() => walletFromEnv({ HUB_WALLET: "paypal://me" })).toThrow(/HUB_WALLET must be/);
  });

  it("pays through an lnbits+http connection string", async () => {
    const lnbits = await FakeLnbits.start();
    lnbits.network = network;
    try {
      await payOnce(walletFromEnv({ HUB_WALLET: `lnbits+${lnbits.url.replace("://", `://${lnbits.adminKey}@`)}` })!);
    } finally {
      await lnbits.close();
    }
  });
});
