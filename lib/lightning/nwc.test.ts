// NWC-specific behaviour beyond the contract: encryption negotiation, the request events on the wire,
// NIP-47 error codes, one relay connection per backend with reconnection, payment_received
// notifications, and events the backend must not trust.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as nip44 from "nostr-tools/nip44";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { nwcCredentialsSchema, parseNwcConnectionUri } from "./credentials.ts";
import { FakeNostrRelay } from "@/tests/fakes/lightning/nostr-relay.ts";
import { FakeNwcWalletService, type Nip47Encryption } from "@/tests/fakes/lightning/nwc-wallet-service.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import { chooseNwcEncryption, NIP47_ERROR_KINDS, Nip47Error, NwcBackend } from "./nwc.ts";
import { WalletError } from "./types.ts";

/** Generous: calls only time out in this file where a test makes the wallet hang. */
const TIMEOUT_MS = 5000;
let relay: FakeNostrRelay;
const services: FakeNwcWalletService[] = [];
const backends: NwcBackend[] = [];

beforeAll(async () => {
  relay = await FakeNostrRelay.start();
});
afterEach(async () => {
  await Promise.all(backends.splice(0).map((backend) => backend.close()));
});
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
  await relay.close();
});

async function service(encryption: Nip47Encryption[] | null = ["nip44_v2", "nip04"], notifications = true): Promise<FakeNwcWalletService> {
  const started = await FakeNwcWalletService.start({ relayUrl: relay.url, encryption, notifications });
  services.push(started);
  return started;
}

function backend(connectionUri: string, timeoutMs = TIMEOUT_MS): NwcBackend {
  const created = new NwcBackend({ credentials: nwcCredentialsSchema.parse({ type: "nwc", connectionUri }), targetPolicy: LOOPBACK_WALLET_POLICY, timeoutMs });
  backends.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<WalletError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WalletError);
  return err as WalletError;
}

const REQUEST = { amountSats: 2100, description: "GET /v1/x", expirySeconds: 600 };

describe("chooseNwcEncryption", () => {
  it.each([
    [null, "nip04"],
    [[], "nip04"],
    [[["encryption", "nip44_v2 nip04"]], "nip44_v2"],
    [[["encryption", "nip04 nip44_v2"]], "nip44_v2"],
    [[["encryption", "nip04"]], "nip04"],
    [[["notifications", "payment_received"]], "nip04"],
  ])("info tags %j -> %s", (tags, expected) => {
    expect(chooseNwcEncryption(tags === null ? null : { tags })).toBe(expected);
  });

  it("refuses a wallet offering only schemes we do not speak", () => {
    expect(() => chooseNwcEncryption({ tags: [["encryption", "nip44_v3"]] })).toThrow(WalletError);
  });
});

describe("NwcBackend", () => {
  it.each([
    [["nip44_v2", "nip04"], "nip44_v2"],
    [["nip04"], "nip04"],
    [null, "nip04"],
  ] as const)("with a wallet offering %j, sends %s requests with the NIP-47 tags", async (offered, expected) => {
    const wallet = await service(offered === null ? null : [...offered]);
    const uri = wallet.connectionUri();
    const nwc = backend(uri);
    await nwc.createInvoice(REQUEST);
    const request = relay.accepted.filter((event) => event.kind === 23194 && event.pubkey === clientPubkeyOf(uri)).at(-1)!;
    expect(request.tags).toContainEqual(["p", wallet.walletPubkey]);
    const expiration = Number(request.tags.find((tag) => tag[0] === "expiration")?.[1]);
    expect(expiration).toBeGreaterThan(Date.now() / 1000);
    expect(request.tags.some((tag) => tag[0] === "encryption" && tag[1] === "nip44_v2")).toBe(expected === "nip44_v2");
    expect(request.content.includes("?iv=")).toBe(expected === "nip04");
    expect(wallet.requests.at(-1)).toMatchObject({
      method: "make_invoice",
      encryption: expected,
      params: { amount: 2_100_000, description: REQUEST.description, expiry: REQUEST.expirySeconds },
    });
  });

  it("keeps one relay connection for all calls, including concurrent ones", async () => {
    const wallet = await service();
    const before = relay.connectionCount;
    const nwc = backend(wallet.connectionUri());
    const invoices = await Promise.all([nwc.createInvoice(REQUEST), nwc.createInvoice(REQUEST), nwc.getNodePubkey()]);
    await nwc.lookupInvoice((invoices[0] as { paymentHash: string }).paymentHash);
    expect(relay.connectionCount).toBe(before + 1);
  });

  it("reconnects on the next call after the relay drops the connection", async () => {
    const wallet = await service();
    const nwc = backend(wallet.connectionUri());
    const created = await nwc.createInvoice(REQUEST);
    relay.dropConnections();
    await subscribed(wallet.walletPubkey, 23194); // the wallet service reconnects on its own
    expect((await nwc.lookupInvoice(created.paymentHash))?.state).toBe("open");
  });

  it.each(Object.entries(NIP47_ERROR_KINDS).filter(([code]) => code !== "NOT_FOUND"))("maps NIP-47 error %s to %s", async (code, kind) => {
    const wallet = await serviceForErrors();
    wallet.failNext(code, `because ${code}`);
    const err = await failure(nwcForErrors.createInvoice(REQUEST));
    expect(err).toBeInstanceOf(Nip47Error);
    expect(err.kind).toBe(kind);
    expect((err as Nip47Error).code).toBe(code);
    // The code, never the wallet's own message.
    expect(err.message).toContain(`(${code})`);
    expect(err.message).not.toContain("because");
  });

  it("maps an unknown NIP-47 error code to rejected", async () => {
    const wallet = await serviceForErrors();
    wallet.failNext("SOMETHING_NEW");
    const err = await failure(nwcForErrors.createInvoice(REQUEST));
    expect(err.kind).toBe("rejected");
    expect(err.message).toContain("(OTHER)");
    expect(err.message).not.toContain("SOMETHING_NEW");
  });

  it("answers getNodePubkey from our invoices when the connection may not call get_info", async () => {
    const wallet = await service();
    const nwc = backend(wallet.connectionUri(["make_invoice", "lookup_invoice"]));
    expect(await nwc.getNodePubkey()).toBeNull();
    await nwc.createInvoice(REQUEST);
    expect(await nwc.getNodePubkey()).toBe(wallet.node.nodePubkey);
    expect((await failure(backend(wallet.connectionUri(["get_info"])).createInvoice(REQUEST))).kind).toBe("unauthorized");
  });

  it("reports a relay refusing the request as rejected", async () => {
    const wallet = await service();
    const nwc = backend(wallet.connectionUri());
    await nwc.getNodePubkey();
    relay.refuseEvents("rate-limited: slow down");
    try {
      const err = await failure(nwc.createInvoice(REQUEST));
      expect(err.kind).toBe("rejected");
      expect(err.message).toContain("relay refused the request");
      expect(err.message).not.toContain("slow down");
    } finally {
      relay.refuseEvents(null);
    }
  });

  it("ignores responses not signed by the wallet service, even when a relay forwards them", async () => {
    const wallet = await service();
    const nwc = backend(wallet.connectionUri(), 600);
    await nwc.getNodePubkey();
    wallet.hang();
    try {
      const pending = nwc.createInvoice(REQUEST);
      await vi.waitFor(() => expect(wallet.requests.at(-1)?.method).toBe("make_invoice"));
      const request = relay.accepted.filter((event) => event.kind === 23194).at(-1)!;
      const impostor = generateSecretKey();
      const content = nip44.v2.encrypt(
        JSON.stringify({ result_type: "make_invoice", error: null, result: { invoice: "lnbcrt1forged" } }),
        nip44.v2.utils.getConversationKey(impostor, request.pubkey),
      );
      const template = {
        kind: 23195,
        created_at: Math.floor(Date.now() / 1000),
        tags: [
          ["p", request.pubkey],
          ["e", request.id],
        ],
        content,
      };
      // Correctly signed by another key; and one claiming to be the wallet with that other key's signature.
      relay.deliverUnchecked(finalizeEvent(template, impostor));
      relay.deliverUnchecked({ ...finalizeEvent(template, impostor), pubkey: wallet.walletPubkey });
      // Had either been read, decryption would have failed with invalid_response instead.
      expect((await failure(pending)).kind).toBe("timeout");
    } finally {
      wallet.resume();
    }
  });

  it("fails pending calls as unreachable when closed, and refuses new ones", async () => {
    const wallet = await service();
    const nwc = backend(wallet.connectionUri());
    await nwc.getNodePubkey();
    wallet.hang();
    try {
      const pending = nwc.createInvoice(REQUEST);
      await vi.waitFor(() => expect(wallet.requests.at(-1)?.method).toBe("make_invoice"));
      await nwc.close();
      expect((await failure(pending)).kind).toBe("unreachable");
      expect((await failure(nwc.createInvoice(REQUEST))).kind).toBe("unreachable");
      expect(() => nwc.onPaymentReceived(() => {})).toThrow(WalletError);
    } finally {
      wallet.resume();
    }
  });

  describe("payment_received notifications", () => {
    it.each([
      ["nip44 (kind 23197) and nip04 (kind 23196) both sent: reported once", ["nip44_v2", "nip04"] as Nip47Encryption[]],
      ["nip04 only (kind 23196)", ["nip04"] as Nip47Encryption[]],
    ])("delivers payment hashes: %s", async (_label, offered) => {
      const wallet = await service(offered);
      const uri = wallet.connectionUri();
      const nwc = backend(uri);
      const received: string[] = [];
      nwc.onPaymentReceived((hash) => received.push(hash));
      const created = await nwc.createInvoice(REQUEST);
      wallet.markPaid(created.paymentHash);
      await vi.waitFor(() => expect(received).toEqual([created.paymentHash]));
      const sentKinds = () =>
        relay.accepted
          .filter((event) => (event.kind === 23196 || event.kind === 23197) && event.tags.some((t) => t[0] === "p" && t[1] === clientPubkeyOf(uri)))
          .map((event) => event.kind)
          .sort();
      await vi.waitFor(() => expect(sentKinds()).toEqual(offered.map((scheme) => (scheme === "nip04" ? 23196 : 23197)).sort()));
      await new Promise((resolve) => setTimeout(resolve, 100)); // time for a second delivery, which must not happen
      expect(received).toHaveLength(1);
    });

    it("reconnects by itself while listeners exist and keeps delivering", async () => {
      const wallet = await service();
      const uri = wallet.connectionUri();
      const nwc = backend(uri);
      const received: string[] = [];
      nwc.onPaymentReceived((hash) => received.push(hash));
      const created = await nwc.createInvoice(REQUEST);
      relay.dropConnections();
      // No call is made: the backend reopens the connection and resubscribes for its listener.
      await subscribed(clientPubkeyOf(uri), 23197);
      await subscribed(wallet.walletPubkey, 23194);
      wallet.markPaid(created.paymentHash);
      await vi.waitFor(() => expect(received).toEqual([created.paymentHash]));
    });
  });
});

/** One wallet service and backend shared by the error-mapping table (a fresh pair per row would be slow). */
let errorsService: FakeNwcWalletService | null = null;
let nwcForErrors: NwcBackend;
async function serviceForErrors(): Promise<FakeNwcWalletService> {
  if (!errorsService) {
    errorsService = await service();
    nwcForErrors = new NwcBackend({
      credentials: nwcCredentialsSchema.parse({ type: "nwc", connectionUri: errorsService.connectionUri() }),
      targetPolicy: LOOPBACK_WALLET_POLICY,
      timeoutMs: TIMEOUT_MS,
    });
  }
  return errorsService;
}
afterAll(async () => {
  await nwcForErrors?.close();
});

/** The client key a connection URI's secret stands for. */
function clientPubkeyOf(uri: string): string {
  return getPublicKey(Buffer.from(parseNwcConnectionUri(uri).secretHex, "hex"));
}

/** Waits until the relay has a live subscription for events of `kind` addressed (`#p`) to `pubkey`. */
async function subscribed(pubkey: string, kind: number): Promise<void> {
  await vi.waitFor(() => expect(relay.hasSubscription((filter) => (filter.kinds ?? []).includes(kind) && (filter["#p"] ?? []).includes(pubkey))).toBe(true), {
    timeout: 5000,
  });
}
