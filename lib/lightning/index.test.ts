import { describe, expect, it } from "vitest";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { FakeLnd } from "@/tests/fakes/lightning/lnd.ts";
import { LOOPBACK_WALLET_POLICY } from "@/tests/fakes/lightning/loopback-policy.ts";
import {
  LnbitsBackend,
  LndRestBackend,
  NwcBackend,
  PhoenixdBackend,
  WalletError,
  walletBackendFor,
  walletBackendOptionsFor,
  walletCredentialsSchema,
  type WalletCredentials,
} from "./index.ts";

const macaroonHex = await (async () => {
  const lnd = await FakeLnd.start();
  await lnd.close();
  return lnd.invoiceMacaroonHex;
})();
const nwcUri = `nostr+walletconnect://${getPublicKey(generateSecretKey())}?relay=wss://relay.example.com&secret=${Buffer.from(generateSecretKey()).toString("hex")}`;

describe("walletBackendFor", () => {
  it.each([
    [{ type: "lnd", restUrl: "https://node.example.com:8080", macaroonHex }, LndRestBackend],
    [{ type: "nwc", connectionUri: nwcUri }, NwcBackend],
    [{ type: "lnbits", url: "https://lnbits.example.com", invoiceKey: "a".repeat(32) }, LnbitsBackend],
    [{ type: "phoenixd", url: "https://phoenixd.example.com", password: "pw" }, PhoenixdBackend],
  ] as const)("builds the %o backend from stored credentials", async (input, backendClass) => {
    const credentials: WalletCredentials = walletCredentialsSchema.parse(input);
    const backend = walletBackendFor(walletBackendOptionsFor(credentials, { devNode: null, targetPolicy: LOOPBACK_WALLET_POLICY, timeoutMs: 1234 }));
    expect(backend).toBeInstanceOf(backendClass);
    expect(backend.type).toBe(input.type);
    await backend.close?.();
  });

  it("refuses the dev wallet when the dev node is off", () => {
    expect(() => walletBackendFor(walletBackendOptionsFor({ type: "dev" }, { devNode: null, targetPolicy: LOOPBACK_WALLET_POLICY }))).toThrow(WalletError);
  });
});
