// Wallet connections as an SSRF channel (issue 23, finding 5). A provider chooses where the platform
// connects for its wallet (LND REST, LNbits, phoenixd and its websocket, an NWC relay), so every one
// of those connections must pass the same address rules as webhooks and origins: refused on save
// (PUT /wallet answers 422 naming the field and the rule, before any connection), refused again at
// connect time for a wallet stored earlier or a name that resolves elsewhere now, and upstream
// bodies never come back in our errors. WALLET_ALLOWED_TARGETS lets a self-hoster's node through.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as settlementRoute } from "@/app/api/l402/settlement/route.ts";
import { PUT } from "@/app/api/tenants/[tenantId]/wallet/route.ts";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import { mintL402Macaroon } from "@/lib/l402/macaroon.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { FakePhoenixd } from "@/tests/fakes/lightning/phoenixd.ts";
import { walletTargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { registerServerContext } from "@/lib/server-context.ts";
import { openWalletBackend } from "@/lib/wallets/open-wallet.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, seedTenant, useApiContext } from "@/tests/api/helpers.ts";
import { call as callGateway, startGateways } from "@/tests/helpers/gateway.ts";

const api = useApiContext();
/** What a self-hoster whose node runs on this machine would set. */
const LOOPBACK = ["127.0.0.0/8", "::1/128"];
const MARKER = "INTERNAL-ONLY-7f3a";

let lnbits: FakeLnbits;
let phoenixd: FakePhoenixd;
let lnd: FakeLnd;
let relay: FakeNostrRelay;
let nwc: FakeNwcWalletService;
let gateway: Awaited<ReturnType<typeof startGateways>>;

beforeAll(async () => {
  [lnbits, phoenixd, lnd, relay] = await Promise.all([FakeLnbits.start(), FakePhoenixd.start(), FakeLnd.start({ tls: true }), FakeNostrRelay.start()]);
  nwc = await FakeNwcWalletService.start({ relayUrl: relay.url });
  gateway = await startGateways(api.test(), api.server().devNode!, 1);
});
afterAll(async () => {
  await gateway?.close();
  await nwc?.close();
  await Promise.all([lnbits?.close(), phoenixd?.close(), lnd?.close(), relay?.close()]);
});

let tenantId: string;
let key: string;
beforeEach(async () => {
  gateway.gateways.forEach((g) => g.tenants.invalidate());
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

const putWallet = (body: unknown) => call(PUT, { method: "PUT", path: `/tenants/${tenantId}/wallet`, params: { tenantId }, token: key, body });
const localhostUrl = (url: string) => url.replace("127.0.0.1", "localhost");

/** Everything the fakes have seen so far: a refused wallet must not add to any of it. */
function traffic() {
  return {
    lnbits: lnbits.connectionsOpened,
    phoenixd: phoenixd.connectionsOpened,
    lnd: lnd.connectionsOpened,
    relay: relay.connectionsOpened,
    nwcRequests: nwc.requests.length,
  };
}

/** Runs `fn` with WALLET_ALLOWED_TARGETS set to `allowed` for the route handlers. */
async function withAllowedTargets<T>(allowed: string[], fn: () => Promise<T>): Promise<T> {
  const server = api.server();
  registerServerContext({ ...server, config: { ...server.config, walletAllowedTargets: allowed } });
  try {
    return await fn();
  } finally {
    registerServerContext(server);
  }
}

/** The wallets under test, by name; built lazily since the fakes' addresses exist only once started. */
const WALLET_CASES = [
  "LNbits on a loopback address",
  "phoenixd behind a name that resolves to loopback",
  "LND over TLS on a loopback address",
  "an NWC relay on a loopback address",
] as const;
function walletCase(name: (typeof WALLET_CASES)[number]): { field: string; wallet: { type: string } & Record<string, unknown> } {
  switch (name) {
    case "LNbits on a loopback address":
      return { field: "url", wallet: { type: "lnbits", url: lnbits.url, invoiceKey: lnbits.invoiceKey } };
    case "phoenixd behind a name that resolves to loopback":
      return { field: "url", wallet: { type: "phoenixd", url: localhostUrl(phoenixd.url), password: phoenixd.password } };
    case "LND over TLS on a loopback address":
      return {
        field: "restUrl",
        wallet: { type: "lnd", restUrl: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS), tlsCertPem: lnd.tlsCertPem },
      };
    case "an NWC relay on a loopback address":
      return { field: "connectionUri", wallet: { type: "nwc", connectionUri: nwc.connectionUri() } };
  }
}

describe("PUT /wallet refuses a wallet whose address is internal", () => {
  it.each(WALLET_CASES)("%s: 422 naming the field and blocked_address, and nothing is contacted", async (name) => {
    const { field, wallet } = walletCase(name);
    const before = traffic();
    const res = await putWallet(wallet);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.details.fields).toEqual([expect.objectContaining({ field, rule: "blocked_address" })]);
    expect(res.body.error.message).toMatch(new RegExp(`${field}: .*private or reserved address.*rule blocked_address`));
    expect(traffic()).toEqual(before);
    expect(await api.test().db.prisma.wallet.count()).toBe(0);
  });

  it("refuses private ranges, metadata and IPv4-mapped loopback by address, without a connection attempt", async () => {
    const macaroonHex = lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS);
    for (const restUrl of ["https://10.0.0.1:8080", "https://169.254.169.254", "https://[::ffff:127.0.0.1]:8080", "https://[fd00::1]:8080"]) {
      const started = Date.now();
      const res = await putWallet({ type: "lnd", restUrl, macaroonHex });
      expect(res.status, restUrl).toBe(422);
      expect(res.body.error.details.fields, restUrl).toEqual([expect.objectContaining({ field: "restUrl", rule: "blocked_address" })]);
      // Refused by the rule, not after a connection attempt timed out.
      expect(Date.now() - started, restUrl).toBeLessThan(2_000);
    }
  });

  it("connects a node on loopback when WALLET_ALLOWED_TARGETS allows it", async () => {
    const res = await withAllowedTargets(LOOPBACK, () => putWallet({ type: "lnbits", url: lnbits.url, invoiceKey: lnbits.invoiceKey }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.type).toBe("lnbits");
  });
});

/** A wallet row written straight into the database: saved before the rule, or a name that resolves elsewhere now. */
async function storedWallet(type: string, credentials: object) {
  const t = api.test();
  const tenant = await tenantFactory(t.db.prisma, t.config.appSecret, { originUrl: "http://127.0.0.1:9/unused" });
  await t.db.prisma.wallet.create({
    data: { tenantId: tenant.tenantId, type: type as "lnbits", credentialsEnc: sealSecret(t.config.appSecret, JSON.stringify(credentials)) },
  });
  await endpointFactory(t.db.prisma, tenant.tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 5 });
  return tenant;
}

describe("a stored wallet whose address is internal is never contacted", () => {
  it.each(WALLET_CASES)("%s: the gateway answers 503 and the wallet sees no connection", async (name) => {
    const { wallet } = walletCase(name);
    const { type, ...credentials } = wallet;
    const tenant = await storedWallet(type, credentials);
    const before = traffic();
    const res = await callGateway(`${gateway.urls[0]}/gw/${tenant.slug}/v1/paid`);
    expect(res.status, res.text).toBe(503);
    expect(res.text).not.toContain("127.0.0.1");
    expect(traffic()).toEqual(before);
  });

  it("the settlement route does not ask a stored wallet on loopback either", async () => {
    const t = api.test();
    const tenant = await storedWallet("lnbits", { url: lnbits.url, invoiceKey: lnbits.invoiceKey });
    const paymentHash = "ab".repeat(32);
    await t.db.prisma.invoice.create({
      data: {
        tenantId: tenant.tenantId,
        paymentHash,
        paymentRequest: "lnbcrt1fake",
        amountSats: 5,
        purpose: "credit",
        expiresAt: new Date(Date.now() + 600_000),
      },
    });
    const { macaroon } = mintL402Macaroon({
      appSecret: t.config.appSecret,
      paymentHash,
      tenantId: tenant.tenantId,
      scope: { kind: "credit" },
      amountSats: 5,
      validUntil: new Date(Date.now() + 600_000),
    });
    const before = traffic();
    const res = await call(settlementRoute, { method: "POST", path: "/l402/settlement", body: { macaroon } });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(traffic()).toEqual(before);
  });

  it("phoenixd's websocket goes through the same check", async () => {
    const t = api.test();
    const credentials = { url: localhostUrl(phoenixd.url), password: phoenixd.password };
    const wallet = { type: "phoenixd", credentialsEnc: sealSecret(t.config.appSecret, JSON.stringify(credentials)) };
    const before = traffic();
    const backend = openWalletBackend({ appSecret: t.config.appSecret, wallet, devNode: null, targetPolicy: walletTargetPolicy(t.config) });
    try {
      backend.onPaymentReceived!(() => {});
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(phoenixd.websocketClients).toBe(0);
      expect(traffic()).toEqual(before);
    } finally {
      await backend.close?.();
    }
  });
});

describe("upstream bodies never reach our errors", () => {
  /** Each backend's failure, its error text carrying MARKER (an internal page the URL led to). */
  function failing(name: "phoenixd" | "LNbits" | "LND" | "NWC"): { type: string } & Record<string, unknown> {
    switch (name) {
      case "phoenixd":
        phoenixd.failNext(500, `<html>admin console ${MARKER}</html>`);
        return { type: "phoenixd", url: phoenixd.url, password: phoenixd.password };
      case "LNbits":
        lnbits.failNext(400, { detail: `no such wallet ${MARKER}` });
        return { type: "lnbits", url: lnbits.url, invoiceKey: lnbits.invoiceKey };
      case "LND":
        lnd.failNext(500, { code: 2, message: `verification failed: ${MARKER}` });
        return { type: "lnd", restUrl: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS), tlsCertPem: lnd.tlsCertPem };
      case "NWC":
        nwc.failNext("INTERNAL", `database at 10.1.2.3 says ${MARKER}`);
        return { type: "nwc", connectionUri: nwc.connectionUri() };
    }
  }

  it.each(["phoenixd", "LNbits", "LND", "NWC"] as const)("%s: the 422 names the status or code, never the body", async (name) => {
    const wallet = failing(name);
    const res = await withAllowedTargets(LOOPBACK, () => putWallet(wallet));
    expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(422);
    expect(JSON.stringify(res.body), name).not.toContain(MARKER);
    expect(res.body.error.message, name).toMatch(/HTTP \d{3}|\([A-Z_]+\)/);
  });
});
