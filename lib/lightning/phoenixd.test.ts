// phoenixd-specific behaviour beyond the contract: form-encoded requests with Basic auth, the
// 128-character description limit, expiry, and payment_received over the websocket.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { phoenixdCredentialsSchema } from "./credentials.ts";
import { FakePhoenixd } from "@/tests/fakes/lightning/phoenixd.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import { PhoenixdBackend, phoenixdDescription, PHOENIXD_MAX_DESCRIPTION_LENGTH } from "./phoenixd.ts";
import { WalletError } from "./types.ts";

let phoenixd: FakePhoenixd;
const backends: PhoenixdBackend[] = [];

beforeAll(async () => {
  phoenixd = await FakePhoenixd.start();
});
afterAll(async () => {
  await Promise.all(backends.map((backend) => backend.close()));
  await phoenixd.close();
});

function backend(password = phoenixd.password, now?: () => Date): PhoenixdBackend {
  const wallet = new PhoenixdBackend({
    credentials: phoenixdCredentialsSchema.parse({ type: "phoenixd", url: phoenixd.url, password }),
    targetPolicy: LOOPBACK_WALLET_POLICY,
    timeoutMs: 5000,
    now,
  });
  backends.push(wallet);
  return wallet;
}

describe("PhoenixdBackend", () => {
  it("posts a form with Basic auth (empty user, the http-password)", async () => {
    const seen = phoenixd.requests.length;
    await backend().createInvoice({ amountSats: 2100, description: "memo & more", expirySeconds: 600 });
    const [create] = phoenixd.requests.slice(seen);
    expect(create.method).toBe("POST");
    expect(create.path).toBe("/createinvoice");
    expect(create.headers.authorization).toBe(`Basic ${Buffer.from(`:${phoenixd.password}`).toString("base64")}`);
    expect(create.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(create.body))).toEqual({ description: "memo & more", amountSat: "2100", expirySeconds: "600" });
  });

  it("shortens descriptions phoenixd would refuse, without splitting a character", async () => {
    const long = "x".repeat(200);
    const created = await backend().createInvoice({ amountSats: 1, description: long, expirySeconds: 60 });
    const sent = new URLSearchParams(phoenixd.requests.at(-1)!.body).get("description")!;
    expect(sent).toHaveLength(PHOENIXD_MAX_DESCRIPTION_LENGTH);
    expect(sent.endsWith("…")).toBe(true);
    expect(created.paymentRequest).toBeTruthy();
    const emoji = `${"y".repeat(126)}😀tail`; // the emoji's surrogate pair straddles the cut
    expect(phoenixdDescription(emoji)).toBe(`${"y".repeat(126)}…`);
    expect(phoenixdDescription("short")).toBe("short");
  });

  it("reports an unpaid invoice past its expiry as expired", async () => {
    let clock = new Date();
    const wallet = backend(phoenixd.password, () => clock);
    const created = await wallet.createInvoice({ amountSats: 5, description: "soon gone", expirySeconds: 60 });
    clock = new Date(clock.getTime() + 61_000);
    expect(await wallet.lookupInvoice(created.paymentHash)).toMatchObject({ state: "expired", settledAt: null, amountSats: 5 });
  });

  it("reports phoenixd's authentication refusal as unauthorized, without repeating its text", async () => {
    const err = await backend("wrong")
      .getNodePubkey()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WalletError);
    expect((err as WalletError).kind).toBe("unauthorized");
    expect((err as WalletError).message).toContain("(HTTP 401)");
    expect((err as WalletError).message).not.toContain("http password set in phoenix.conf");
  });

  describe("payment_received over the websocket", () => {
    it("delivers payment hashes, opening the socket for the first listener and closing it after the last", async () => {
      const wallet = backend(phoenixd.limitedPassword);
      const created = await wallet.createInvoice({ amountSats: 21, description: "pushed", expirySeconds: 600 });
      const received: string[] = [];
      const stop = wallet.onPaymentReceived((hash) => received.push(hash));
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(1));
      phoenixd.markPaid(created.paymentHash);
      await vi.waitFor(() => expect(received).toEqual([created.paymentHash]));
      stop();
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(0));
    });

    it("reconnects after the connection drops and keeps delivering", async () => {
      const wallet = backend();
      const received: string[] = [];
      wallet.onPaymentReceived((hash) => received.push(hash));
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(1));
      phoenixd.dropWebsockets();
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(0));
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(1));
      const created = await wallet.createInvoice({ amountSats: 22, description: "after the drop", expirySeconds: 600 });
      phoenixd.markPaid(created.paymentHash);
      await vi.waitFor(() => expect(received).toEqual([created.paymentHash]));
      await wallet.close();
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(0));
      expect(() => wallet.onPaymentReceived(() => {})).toThrow(WalletError);
    });

    it("keeps other listeners informed when one throws", async () => {
      const wallet = backend();
      const received: string[] = [];
      wallet.onPaymentReceived(() => {
        throw new Error("listener bug");
      });
      wallet.onPaymentReceived((hash) => received.push(hash));
      await vi.waitFor(() => expect(phoenixd.websocketClients).toBe(1));
      const created = await wallet.createInvoice({ amountSats: 23, description: "isolation", expirySeconds: 600 });
      phoenixd.markPaid(created.paymentHash);
      await vi.waitFor(() => expect(received).toEqual([created.paymentHash]));
      await wallet.close();
    });

    it("is refused with a wrong password and never delivers", async () => {
      const wallet = backend("not-the-password");
      const received: string[] = [];
      wallet.onPaymentReceived((hash) => received.push(hash));
      const created = await backend().createInvoice({ amountSats: 24, description: "not for you", expirySeconds: 600 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(phoenixd.websocketClients).toBe(0); // the upgrade was answered 401
      phoenixd.markPaid(created.paymentHash);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(received).toEqual([]);
      await wallet.close();
    });
  });
});
