// Flooding POST /api/l402/settlement (issue 23, finding 12): the route is public and each call used to
// open a new connection to the provider's wallet (a relay WebSocket for NWC, a TLS handshake for
// LND), with no limit per caller. A burst from one IP must get 429 with Retry-After, and polling
// one invoice any number of times must reuse one wallet connection. Real route handler, real
// gateway issuing the challenge, the wallets' local fakes counting the connections they accept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/l402/settlement/route.ts";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { LOOPBACK_WALLET_TARGETS } from "@/tests/fakes/lightning/loopback-policy.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, useApiContext } from "@/tests/api/helpers.ts";
import { call as callGateway, header, startGateways } from "@/tests/helpers/gateway.ts";

// The fakes listen on loopback, as a self-hoster's node would with WALLET_ALLOWED_TARGETS.
const api = useApiContext({ WALLET_ALLOWED_TARGETS: LOOPBACK_WALLET_TARGETS });

let relay: FakeNostrRelay;
let nwc: FakeNwcWalletService;
let lnd: FakeLnd;
let gateway: Awaited<ReturnType<typeof startGateways>>;

beforeAll(async () => {
  [relay, lnd] = await Promise.all([FakeNostrRelay.start(), FakeLnd.start({ tls: true })]);
  nwc = await FakeNwcWalletService.start({ relayUrl: relay.url });
  gateway = await startGateways(api.test(), api.server().devNode!, 1);
});
afterAll(async () => {
  await gateway?.close();
  await nwc?.close();
  await Promise.all([relay?.close(), lnd?.close()]);
});
beforeEach(() => {
  gateway.gateways.forEach((g) => g.tenants.invalidate());
});

const settlement = (body: unknown, ip = "198.51.100.7") => call(POST, { method: "POST", path: "/l402/settlement", body, headers: { "x-hub-client-ip": ip } });

/** A tenant paid through `wallet`, and a fresh 402 from the real gateway: its macaroon and payment hash. */
async function challengeFrom(type: "nwc" | "lnd", credentials: object) {
  const t = api.test();
  const tenant = await tenantFactory(t.db.prisma, t.config.appSecret, { originUrl: "http://127.0.0.1:9/unused" });
  await t.db.prisma.wallet.create({ data: { tenantId: tenant.tenantId, type, credentialsEnc: sealSecret(t.config.appSecret, JSON.stringify(credentials)) } });
  await endpointFactory(t.db.prisma, tenant.tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 3 });
  const res = await callGateway(`${gateway.urls[0]}/gw/${tenant.slug}/v1/paid`);
  expect(res.status, res.text).toBe(402);
  const macaroon = /macaroon="([^"]+)"/.exec(header(res, "www-authenticate") ?? "")![1];
  return { macaroon, paymentHash: res.json.paymentHash as string };
}

describe("POST /api/l402/settlement under a flood", () => {
  it("answers a burst from one IP with 429 and Retry-After, while other IPs are still served", async () => {
    let limited: Awaited<ReturnType<typeof settlement>> | null = null;
    let served = 0;
    for (let i = 0; i < 500 && !limited; i++) {
      const res = await settlement({ macaroon: "AgEEbHNhdAJCAAA=" }, "203.0.113.50");
      if (res.status === 429) limited = res;
      else served += 1;
    }
    expect(limited, "no 429 within 500 calls").not.toBeNull();
    expect(served).toBeGreaterThanOrEqual(60); // room for a visitor polling a few QR invoices
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited!.body.error).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/per minute/) });
    // Another caller is not punished for it.
    expect((await settlement({ macaroon: "AgEEbHNhdAJCAAA=" }, "203.0.113.51")).status).toBe(401);
  });

  it.each([
    ["NWC (a relay WebSocket)", "nwc"],
    ["LND over TLS", "lnd"],
  ] as const)("polls one invoice of a %s wallet many times over at most one new wallet connection", async (_, type) => {
    const credentials =
      type === "nwc"
        ? { connectionUri: nwc.connectionUri() }
        : { restUrl: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS), tlsCertPem: lnd.tlsCertPem };
    const { macaroon, paymentHash } = await challengeFrom(type, credentials);
    const opened = () => (type === "nwc" ? relay.connectionsOpened : lnd.connectionsOpened);
    // A browser polls every 1-5 s. Between polls undici needs one event-loop turn before it reuses a
    // keep-alive socket (it waits for servers that close one they said they would keep), so a
    // short pause stands in for the seconds between real polls.
    const poll = async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return (await settlement({ macaroon })).body;
    };
    const before = opened();
    for (let i = 0; i < 8; i++) expect(await poll()).toEqual({ state: "open", paymentHash, preimage: null });
    (type === "nwc" ? nwc : lnd).markPaid(paymentHash);
    for (let i = 0; i < 3; i++) expect(await poll()).toMatchObject({ state: "settled", paymentHash, preimage: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(opened() - before).toBeLessThanOrEqual(1);
  });
});
