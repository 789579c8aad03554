// LND-specific behaviour beyond the contract: wire shapes, macaroon permissions, capacity, expiry,
// and trusting the node's self-signed certificate through tlsCertPem.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { lndCredentialsSchema } from "./credentials.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { generateSelfSignedCertificate } from "@/tests/fakes/lightning/self-signed-cert.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import { LndRestBackend } from "./lnd-rest.ts";
import { WalletError } from "./types.ts";

let clock = new Date("2030-01-01T00:00:00Z");
const now = () => clock;
let lnd: FakeLnd;
let tlsLnd: FakeLnd;

beforeAll(async () => {
  lnd = await FakeLnd.start({ now });
  tlsLnd = await FakeLnd.start({ tls: true });
});
afterAll(async () => {
  await lnd.close();
  await tlsLnd.close();
});

function backend(options: { macaroonHex?: string; restUrl?: string; tlsCertPem?: string } = {}): LndRestBackend {
  const credentials = lndCredentialsSchema.parse({
    type: "lnd",
    restUrl: options.restUrl ?? lnd.url,
    macaroonHex: options.macaroonHex ?? lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS),
    ...(options.tlsCertPem ? { tlsCertPem: options.tlsCertPem } : {}),
  });
  // The TLS node runs on the real clock; the plain one on the test's.
  return new LndRestBackend({
    credentials,
    targetPolicy: LOOPBACK_WALLET_POLICY,
    timeoutMs: 5000,
    now: credentials.restUrl.startsWith("https:") ? undefined : now,
  });
}

async function failure(promise: Promise<unknown>): Promise<WalletError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WalletError);
  return err as WalletError;
}

describe("LndRestBackend", () => {
  it("sends AddInvoice and LookupInvoice exactly as LND's REST proxy documents them", async () => {
    const macaroonHex = lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS);
    const wallet = backend({ macaroonHex });
    const seen = lnd.requests.length;
    const created = await wallet.createInvoice({ amountSats: 2100, description: "memo ☀", expirySeconds: 600 });
    await wallet.lookupInvoice(created.paymentHash);
    const [add, lookup] = lnd.requests.slice(seen);
    expect(add.method).toBe("POST");
    expect(add.path).toBe("/v1/invoices");
    expect(add.headers["grpc-metadata-macaroon"]).toBe(macaroonHex);
    expect(add.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(add.body)).toEqual({ value: "2100", memo: "memo ☀", expiry: "600" });
    expect(lookup.method).toBe("GET");
    expect(lookup.path).toBe(`/v1/invoice/${created.paymentHash}`);
    expect(lookup.headers["grpc-metadata-macaroon"]).toBe(macaroonHex);
  });

  it("works with a plain invoice.macaroon: the node key comes from our invoices, capacity is refused", async () => {
    const wallet = backend({ macaroonHex: lnd.invoiceMacaroonHex });
    expect(await wallet.getNodePubkey()).toBeNull();
    await wallet.createInvoice({ amountSats: 10, description: "x", expirySeconds: 60 });
    expect(await wallet.getNodePubkey()).toBe(lnd.node.nodePubkey);
    const err = await failure(wallet.getCapacity());
    expect(err.kind).toBe("unauthorized");
    // LND's text classifies the failure but is not repeated.
    expect(err.message).toContain("refused the macaroon for channel listing");
    expect(err.message).not.toContain("permission denied");
  });

  it("reports capacity from ListChannels: inbound above the peer's reserve, on active channels only", async () => {
    const peerA = `02${"a".repeat(64)}`;
    const peerB = `03${"b".repeat(64)}`;
    lnd.channels = [
      { active: true, remotePubkey: peerA, capacitySat: 1_000_000, localBalanceSat: 400_000, remoteBalanceSat: 590_000, remoteReserveSat: 10_000 },
      { active: true, remotePubkey: peerA, capacitySat: 200_000, localBalanceSat: 200_000, remoteBalanceSat: 0, remoteReserveSat: 2_000 },
      { active: false, remotePubkey: peerB, capacitySat: 500_000, localBalanceSat: 0, remoteBalanceSat: 495_000, remoteReserveSat: 5_000 },
    ];
    try {
      expect(await backend().getCapacity()).toEqual({
        activeChannels: 2,
        totalChannels: 3,
        receivingCapacitySat: 580_000,
        totalCapacitySat: 1_700_000,
        peersOnline: 1,
      });
    } finally {
      lnd.channels = [];
    }
  });

  it("reports an open invoice past its expiry as expired (LND cancels it)", async () => {
    const wallet = backend();
    const created = await wallet.createInvoice({ amountSats: 5, description: "soon gone", expirySeconds: 60 });
    const start = clock;
    try {
      clock = new Date(start.getTime() + 61_000);
      expect(await wallet.lookupInvoice(created.paymentHash)).toMatchObject({ state: "expired", settledAt: null, amountSats: 5 });
    } finally {
      clock = start;
    }
  });

  it("tells LND's unknown-invoice answer apart from a 404 of a wrong URL", async () => {
    expect(await backend().lookupInvoice(randomBytes(32).toString("hex"))).toBeNull();
    const wrongPath = backend({ restUrl: `${lnd.url}/not-lnd` });
    expect((await failure(wrongPath.lookupInvoice(randomBytes(32).toString("hex")))).kind).toBe("unreachable");
    // LND before 0.15 sent "unable to locate invoice" as a gRPC Unknown error (HTTP 500).
    lnd.failNext(500, { code: 2, message: "unable to locate invoice", details: [] });
    expect(await backend().lookupInvoice(randomBytes(32).toString("hex"))).toBeNull();
  });

  it.each([
    [500, { code: 2, message: "verification failed: signature mismatch after caveat verification", details: [] }, "unauthorized"],
    [500, { code: 2, message: "expected 1 macaroon, got 0", details: [] }, "unauthorized"],
    [500, { code: 2, message: "memo too large: 2000 bytes (maxsize=1024)", details: [] }, "rejected"],
    [400, { code: 3, message: "unknown field", details: [] }, "rejected"],
    [503, "Service Unavailable", "unreachable"],
    [200, { r_hash: "AAAA", payment_request: "lnbcrt1" }, "invalid_response"],
    [200, { payment_request: "lnbcrt1" }, "invalid_response"],
  ])("maps HTTP %i %j to %s", async (status, body, kind) => {
    lnd.failNext(status, body);
    expect((await failure(backend().createInvoice({ amountSats: 1, description: "x", expirySeconds: 60 }))).kind).toBe(kind);
  });

  it("answers without a macaroon header as LND does (the fake's own fidelity)", async () => {
    const response = await request(`${lnd.url}/v1/getinfo`);
    expect(response.statusCode).toBe(500);
    expect(await response.body.json()).toEqual({ code: 2, message: "expected 1 macaroon, got 0", details: [] });
  });

  describe("with LND's self-signed TLS certificate", () => {
    it("trusts the node's tls.cert given as tlsCertPem", async () => {
      const wallet = backend({ restUrl: tlsLnd.url, macaroonHex: tlsLnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS), tlsCertPem: tlsLnd.tlsCertPem! });
      try {
        expect(await wallet.getNodePubkey()).toBe(tlsLnd.node.nodePubkey);
        const created = await wallet.createInvoice({ amountSats: 3, description: "over TLS", expirySeconds: 60 });
        expect((await wallet.lookupInvoice(created.paymentHash))?.state).toBe("open");
      } finally {
        await wallet.close();
      }
    });

    it.each([
      ["no certificate", undefined],
      ["another node's certificate", generateSelfSignedCertificate().certPem],
    ])("refuses the connection with %s, pointing at tlsCertPem", async (_label, tlsCertPem) => {
      const wallet = backend({ restUrl: tlsLnd.url, macaroonHex: tlsLnd.invoiceMacaroonHex, tlsCertPem });
      try {
        const err = await failure(wallet.createInvoice({ amountSats: 3, description: "x", expirySeconds: 60 }));
        expect(err.kind).toBe("unreachable");
        expect(err.message).toContain("tlsCertPem");
      } finally {
        await wallet.close();
      }
    });
  });
});
