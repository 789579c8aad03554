// The WalletBackend contract (../shared/STYLE.md rule 6): one suite, run against the dev node and every real
// backend talking to a faithful local fake of its protocol. Anything the gateway relies on is here.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decode as decodeBolt11 } from "bolt11";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { closedLoopbackPort } from "@/tests/fakes/lightning/fake-http-server.ts";
import { FakeLnbits } from "@/tests/fakes/lightning/lnbits.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService, type Nip47Encryption } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { FakePhoenixd } from "@/tests/fakes/lightning/phoenixd.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import {
  DevLightningNode,
  WalletError,
  lnbitsCredentialsSchema,
  lndCredentialsSchema,
  nwcCredentialsSchema,
  phoenixdCredentialsSchema,
  walletBackendFor,
  type CapableWalletBackend,
  type CreatedInvoice,
} from "./index.ts";

/** The timeout under test: a hanging wallet must fail this fast. */
const TEST_TIMEOUT_MS = 300;
/** Every other call gets room for cold starts on a busy machine (first signatures, JIT), so no test flakes. */
const CALL_TIMEOUT_MS = 5000;

/** What the contract needs from each backend under test and its fake. */
type Harness = {
  /** Whether transport failures exist (false for the in-process dev node). */
  remote: boolean;
  /** Whether the node key is known before the first invoice (LNbits only learns it from invoices). */
  knowsPubkeyUpfront: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A backend with good credentials (timeoutMs: CALL_TIMEOUT_MS unless given). */
  backend(timeoutMs?: number): CapableWalletBackend;
  /** A backend whose credentials the wallet refuses. */
  wrongCredentials(): CapableWalletBackend;
  /** A backend pointed at a closed port. */
  unreachable(): Promise<CapableWalletBackend>;
  nodePubkey(): string;
  markPaid(invoice: CreatedInvoice): Promise<void>;
  hang(): void;
  resume(): void;
  malformNext(): void;
};

/** Backends created by a test, closed after it (NWC keeps a relay socket, phoenixd a websocket). */
const opened: CapableWalletBackend[] = [];
function track(backend: CapableWalletBackend): CapableWalletBackend {
  opened.push(backend);
  return backend;
}

function devHarness(): Harness {
  let ctx: TestContext;
  let node: DevLightningNode;
  return {
    remote: false,
    knowsPubkeyUpfront: true,
    async setup() {
      ctx = await createTestContext();
      node = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: "wallet-contract-dev-node-secret-0123456789" });
    },
    teardown: async () => ctx.close(),
    backend: () => track(walletBackendFor({ type: "dev", devNode: node })),
    wrongCredentials: () => {
      throw new Error("the dev node has no credentials");
    },
    unreachable: () => {
      throw new Error("the dev node runs in process");
    },
    nodePubkey: () => node.nodePubkey,
    markPaid: async (invoice) => {
      await node.pay(invoice.paymentRequest);
    },
    hang: () => {},
    resume: () => {},
    malformNext: () => {},
  };
}

function lndHarness(): Harness {
  let lnd: FakeLnd;
  const backendWith = (macaroonHex: string, restUrl = lnd.url, timeoutMs = CALL_TIMEOUT_MS) =>
    track(
      walletBackendFor({
        type: "lnd",
        credentials: lndCredentialsSchema.parse({ type: "lnd", restUrl, macaroonHex }),
        targetPolicy: LOOPBACK_WALLET_POLICY,
        timeoutMs,
      }),
    );
  return {
    remote: true,
    knowsPubkeyUpfront: true,
    setup: async () => {
      lnd = await FakeLnd.start();
    },
    teardown: async () => lnd.close(),
    backend: (timeoutMs) => backendWith(lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS), lnd.url, timeoutMs),
    // A macaroon from another node: same format, different root key.
    wrongCredentials: () => backendWith(otherLnd!.invoiceMacaroonHex),
    unreachable: async () => backendWith(lnd.invoiceMacaroonHex, `http://127.0.0.1:${await closedLoopbackPort()}`),
    nodePubkey: () => lnd.node.nodePubkey,
    markPaid: async (invoice) => {
      lnd.markPaid(invoice.paymentHash);
    },
    hang: () => lnd.hang(),
    resume: () => lnd.resume(),
    malformNext: () => lnd.malformNext(),
  };
}
let otherLnd: FakeLnd | null = null;

function nwcHarness(encryption: Nip47Encryption[]): Harness {
  let relay: FakeNostrRelay;
  let service: FakeNwcWalletService;
  const backendWith = (connectionUri: string, timeoutMs = CALL_TIMEOUT_MS) =>
    track(
      walletBackendFor({
        type: "nwc",
        credentials: nwcCredentialsSchema.parse({ type: "nwc", connectionUri }),
        targetPolicy: LOOPBACK_WALLET_POLICY,
        timeoutMs,
      }),
    );
  return {
    remote: true,
    knowsPubkeyUpfront: true,
    setup: async () => {
      relay = await FakeNostrRelay.start();
      service = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption });
    },
    teardown: async () => {
      await service.close();
      await relay.close();
    },
    backend: (timeoutMs) => backendWith(service.connectionUri(), timeoutMs),
    wrongCredentials: () => backendWith(service.unknownClientUri()),
    unreachable: async () => {
      const uri = new URL(service.connectionUri().replace("nostr+walletconnect://", "http://"));
      uri.searchParams.set("relay", `ws://127.0.0.1:${await closedLoopbackPort()}`);
      return backendWith(uri.toString().replace("http://", "nostr+walletconnect://"));
    },
    nodePubkey: () => service.node.nodePubkey,
    markPaid: async (invoice) => {
      service.markPaid(invoice.paymentHash);
    },
    hang: () => service.hang(),
    resume: () => service.resume(),
    malformNext: () => service.malformNext(),
  };
}

function lnbitsHarness(): Harness {
  let lnbits: FakeLnbits;
  const backendWith = (invoiceKey: string, url = lnbits.url, timeoutMs = CALL_TIMEOUT_MS) =>
    track(
      walletBackendFor({
        type: "lnbits",
        credentials: lnbitsCredentialsSchema.parse({ type: "lnbits", url, invoiceKey }),
        targetPolicy: LOOPBACK_WALLET_POLICY,
        timeoutMs,
      }),
    );
  return {
    remote: true,
    knowsPubkeyUpfront: false,
    setup: async () => {
      lnbits = await FakeLnbits.start();
    },
    teardown: async () => lnbits.close(),
    backend: (timeoutMs) => backendWith(lnbits.invoiceKey, lnbits.url, timeoutMs),
    wrongCredentials: () => backendWith(randomBytes(16).toString("hex")),
    unreachable: async () => backendWith(lnbits.invoiceKey, `http://127.0.0.1:${await closedLoopbackPort()}`),
    nodePubkey: () => lnbits.node.nodePubkey,
    markPaid: async (invoice) => {
      lnbits.markPaid(invoice.paymentHash);
    },
    hang: () => lnbits.hang(),
    resume: () => lnbits.resume(),
    malformNext: () => lnbits.malformNext(),
  };
}

function phoenixdHarness(): Harness {
  let phoenixd: FakePhoenixd;
  const backendWith = (password: string, url = phoenixd.url, timeoutMs = CALL_TIMEOUT_MS) =>
    track(
      walletBackendFor({
        type: "phoenixd",
        credentials: phoenixdCredentialsSchema.parse({ type: "phoenixd", url, password }),
        targetPolicy: LOOPBACK_WALLET_POLICY,
        timeoutMs,
      }),
    );
  return {
    remote: true,
    knowsPubkeyUpfront: true,
    setup: async () => {
      phoenixd = await FakePhoenixd.start();
    },
    teardown: async () => phoenixd.close(),
    backend: (timeoutMs) => backendWith(phoenixd.limitedPassword, phoenixd.url, timeoutMs),
    wrongCredentials: () => backendWith("not-the-http-password"),
    unreachable: async () => backendWith(phoenixd.password, `http://127.0.0.1:${await closedLoopbackPort()}`),
    nodePubkey: () => phoenixd.node.nodePubkey,
    markPaid: async (invoice) => {
      phoenixd.markPaid(invoice.paymentHash);
    },
    hang: () => phoenixd.hang(),
    resume: () => phoenixd.resume(),
    malformNext: () => phoenixd.malformNext(),
  };
}

/** The WalletError kind a promise rejects with (fails the test if it resolves or throws anything else). */
async function walletErrorKind(promise: Promise<unknown>): Promise<WalletError["kind"]> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(WalletError);
    return (err as WalletError).kind;
  }
  throw new Error("expected a WalletError");
}

const REQUEST = { amountSats: 2100, description: "GET /v1/route ☀ contract", expirySeconds: 600 };

beforeAll(async () => {
  otherLnd = await FakeLnd.start();
});
afterAll(async () => {
  await otherLnd?.close();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((backend) => backend.close?.()));
});

describe.each([
  ["dev node", devHarness()],
  ["lnd", lndHarness()],
  ["nwc-nip04", nwcHarness(["nip04"])],
  ["nwc-nip44", nwcHarness(["nip44_v2", "nip04"])],
  ["lnbits", lnbitsHarness()],
  ["phoenixd", phoenixdHarness()],
] as const)("WalletBackend contract: %s", (_name, harness) => {
  beforeAll(() => harness.setup());
  afterAll(() => harness.teardown());

  it("creates a real BOLT11 invoice for exactly the amount, with its hash, description and expiry", async () => {
    const backend = harness.backend();
    const created = await backend.createInvoice(REQUEST);
    const decoded = decodeBolt11(created.paymentRequest);
    expect(decoded.millisatoshis).toBe(String(REQUEST.amountSats * 1000));
    expect(decoded.tagsObject.payment_hash).toBe(created.paymentHash);
    expect(created.paymentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(decoded.tagsObject.description).toBe(REQUEST.description);
    expect(decoded.tagsObject.expire_time).toBe(REQUEST.expirySeconds);
    expect(created.expiresAt.getTime()).toBe((decoded.timestamp! + REQUEST.expirySeconds) * 1000);
    expect(decoded.payeeNodeKey).toBe(harness.nodePubkey());
  });

  it('refuses an amount no wallet can invoice with "rejected"', async () => {
    const backend = harness.backend();
    expect(await walletErrorKind(backend.createInvoice({ ...REQUEST, amountSats: 0 }))).toBe("rejected");
    expect(await walletErrorKind(backend.createInvoice({ ...REQUEST, amountSats: 1.5 }))).toBe("rejected");
  });

  it("looks up an unknown or malformed payment hash as null", async () => {
    const backend = harness.backend();
    expect(await backend.lookupInvoice(randomBytes(32).toString("hex"))).toBeNull();
    expect(await backend.lookupInvoice("not-a-hash")).toBeNull();
  });

  it("reports a fresh invoice as open, then settled with settledAt once paid", async () => {
    const backend = harness.backend();
    const created = await backend.createInvoice(REQUEST);
    expect(await backend.lookupInvoice(created.paymentHash)).toEqual({
      paymentHash: created.paymentHash,
      state: "open",
      settledAt: null,
      amountSats: REQUEST.amountSats,
      preimage: null,
    });

    const before = Date.now();
    await harness.markPaid(created);
    const settled = await backend.lookupInvoice(created.paymentHash.toUpperCase());
    expect(settled).toMatchObject({ paymentHash: created.paymentHash, state: "settled", amountSats: REQUEST.amountSats });
    // The preimage is reported once settled (the QR try-it flow releases it to the macaroon holder).
    expect(settled!.preimage).toMatch(/^[0-9a-f]{64}$/);
    expect(createHash("sha256").update(Buffer.from(settled!.preimage!, "hex")).digest("hex")).toBe(created.paymentHash);
    // Wallets report settlement in whole seconds.
    expect(settled!.settledAt).toBeInstanceOf(Date);
    expect(settled!.settledAt!.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(settled!.settledAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("names the node that signs its invoices", async () => {
    const fresh = harness.backend();
    if (harness.knowsPubkeyUpfront) expect(await fresh.getNodePubkey()).toBe(harness.nodePubkey());
    else expect(await fresh.getNodePubkey()).toBeNull();
    const backend = harness.backend();
    await backend.createInvoice(REQUEST);
    expect(await backend.getNodePubkey()).toBe(harness.nodePubkey());
  });

  it.runIf(harness.remote)('fails with "unauthorized" when the wallet refuses the credentials', async () => {
    expect(await walletErrorKind(harness.wrongCredentials().createInvoice(REQUEST))).toBe("unauthorized");
  });

  it.runIf(harness.remote)('fails with "timeout" within the configured timeout when the wallet never answers', async () => {
    const backend = harness.backend(TEST_TIMEOUT_MS);
    harness.hang();
    try {
      const started = Date.now();
      expect(await walletErrorKind(backend.createInvoice(REQUEST))).toBe("timeout");
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TEST_TIMEOUT_MS - 5);
      expect(elapsed).toBeLessThan(TEST_TIMEOUT_MS + 1000);
    } finally {
      harness.resume();
    }
  });

  it.runIf(harness.remote)('fails with "unreachable" when the connection is refused', async () => {
    const backend = await harness.unreachable();
    expect(await walletErrorKind(backend.createInvoice(REQUEST))).toBe("unreachable");
  });

  it.runIf(harness.remote)('fails with "invalid_response" when the wallet answers garbage', async () => {
    const backend = harness.backend();
    await backend.getNodePubkey(); // connected and warmed up, so the garbage meets the invoice call
    harness.malformNext();
    expect(await walletErrorKind(backend.createInvoice(REQUEST))).toBe("invalid_response");
  });
});
