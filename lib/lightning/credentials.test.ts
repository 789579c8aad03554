import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { FakeLnd } from "@/tests/fakes/lightning/lnd.ts";
import { generateSelfSignedCertificate } from "@/tests/fakes/lightning/self-signed-cert.ts";
import { describeWallet, isLoopbackHost, parseNwcConnectionUri, walletCredentialsSchema, type WalletCredentials } from "./credentials.ts";

const walletPubkey = getPublicKey(generateSecretKey());
const secretHex = Buffer.from(generateSecretKey()).toString("hex");
const nwcUri = (query: string, pubkey = walletPubkey) => `nostr+walletconnect://${pubkey}?${query}`;
const goodNwcUri = nwcUri(`relay=${encodeURIComponent("wss://relay.example.com/v1")}&secret=${secretHex}&lud16=me%40example.com`);

/** A real V2 macaroon in hex, as LND bakes it. */
const macaroonHex = await (async () => {
  const lnd = await FakeLnd.start();
  await lnd.close();
  return lnd.invoiceMacaroonHex;
})();
const { certPem } = generateSelfSignedCertificate();

/** The message of the first issue for a candidate, or null when it parses. */
function problem(candidate: unknown): string | null {
  const parsed = walletCredentialsSchema.safeParse(candidate);
  return parsed.success ? null : `${parsed.error.issues[0].path.join(".")}: ${parsed.error.issues[0].message}`;
}

describe("walletCredentialsSchema", () => {
  it("accepts one well-formed credential set per backend and normalizes URLs and keys", () => {
    const parsed = [
      { type: "dev" },
      { type: "lnd", restUrl: "https://node.example.com:8080/", macaroonHex: macaroonHex.toUpperCase(), tlsCertPem: certPem },
      { type: "nwc", connectionUri: goodNwcUri },
      { type: "lnbits", url: "https://lnbits.example.com/lnbits/", invoiceKey: "ABCDEF0123456789abcdef0123456789" },
      { type: "phoenixd", url: "http://127.0.0.1:9740", password: "p@ss word" },
    ].map((candidate) => walletCredentialsSchema.parse(candidate));
    expect(parsed[1]).toMatchObject({ restUrl: "https://node.example.com:8080", macaroonHex });
    expect(parsed[3]).toMatchObject({ url: "https://lnbits.example.com/lnbits", invoiceKey: "abcdef0123456789abcdef0123456789" });
    expect(parsed[4]).toMatchObject({ url: "http://127.0.0.1:9740" });
  });

  it.each([
    ["an unknown type", { type: "cln" }, "type"],
    ["an unknown field", { type: "dev", extra: 1 }, ""],
    ["plain http to a remote host", { type: "lnd", restUrl: "http://node.example.com:8080", macaroonHex }, "https"],
    ["credentials in the URL", { type: "lnbits", url: "https://user:pw@lnbits.example.com", invoiceKey: "a".repeat(32) }, "credentials"],
    ["a query in the URL", { type: "phoenixd", url: "https://phoenix.example.com/?x=1", password: "pw" }, "query"],
    ["a non-URL", { type: "phoenixd", url: "phoenix.example.com", password: "pw" }, "must be a URL"],
    ["a macaroon that is not hex", { type: "lnd", restUrl: "https://n.example.com", macaroonHex: "zz" }, "hex"],
    ["hex that is not a macaroon", { type: "lnd", restUrl: "https://n.example.com", macaroonHex: "deadbeef" }, "not an LND macaroon"],
    ["a certificate that is not PEM", { type: "lnd", restUrl: "https://n.example.com", macaroonHex, tlsCertPem: "hello" }, "PEM"],
    ["a short LNbits key", { type: "lnbits", url: "https://l.example.com", invoiceKey: "abc" }, "32 hex"],
    ["an empty phoenixd password", { type: "phoenixd", url: "https://p.example.com", password: "" }, "required"],
    ["a control character in the password", { type: "phoenixd", url: "https://p.example.com", password: "a\nb" }, "control"],
  ])("refuses %s", (_label, candidate, expected) => {
    expect(problem(candidate)).toContain(expected);
  });

  it("only allows plain http for loopback hosts (property)", () => {
    fc.assert(
      fc.property(fc.domain(), fc.boolean(), (host, secure) => {
        const result = problem({ type: "lnbits", url: `${secure ? "https" : "http"}://${host}`, invoiceKey: "0".repeat(32) });
        return secure || isLoopbackHost(host) ? result === null : result !== null && result.includes("https");
      }),
    );
  });
});

describe("isLoopbackHost", () => {
  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["[::1]", true],
    ["::1", true],
    ["128.0.0.1", false],
    ["localhost.example.com", false],
    ["10.0.0.1", false],
  ])("%s -> %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe("parseNwcConnectionUri", () => {
  it("reads every part of a NIP-47 connection URI", () => {
    expect(parseNwcConnectionUri(goodNwcUri)).toEqual({
      walletPubkey,
      relayUrls: ["wss://relay.example.com/v1"],
      secretHex,
      lud16: "me@example.com",
    });
    const twoRelays = nwcUri(`relay=wss://a.example.com&relay=ws://127.0.0.1:7777&secret=${secretHex.toUpperCase()}`, walletPubkey.toUpperCase());
    expect(parseNwcConnectionUri(twoRelays)).toMatchObject({ walletPubkey, relayUrls: ["wss://a.example.com", "ws://127.0.0.1:7777"], secretHex });
  });

  it.each([
    ["another scheme", `nostrwalletconnect://${walletPubkey}?relay=wss://r.example.com&secret=${secretHex}`, "must start with"],
    ["a short pubkey", nwcUri(`relay=wss://r.example.com&secret=${secretHex}`, "abcd"), "64 hex"],
    ["a pubkey off the curve", nwcUri(`relay=wss://r.example.com&secret=${secretHex}`, "f".repeat(64)), "not a valid secp256k1 point"],
    ["no relay", nwcUri(`secret=${secretHex}`), "at least one relay"],
    ["a relay that is not a URL", nwcUri(`relay=relay&secret=${secretHex}`), "not a URL"],
    ["a remote ws:// relay", nwcUri(`relay=ws://r.example.com&secret=${secretHex}`), "wss://"],
    ["an https relay", nwcUri(`relay=https://r.example.com&secret=${secretHex}`), "wss://"],
    ["no secret", nwcUri("relay=wss://r.example.com"), "exactly one secret"],
    ["two secrets", nwcUri(`relay=wss://r.example.com&secret=${secretHex}&secret=${secretHex}`), "exactly one secret"],
    ["a zero secret", nwcUri(`relay=wss://r.example.com&secret=${"0".repeat(64)}`), "not a valid secp256k1 secret key"],
  ])("refuses %s", (_label, uri, expected) => {
    expect(() => parseNwcConnectionUri(uri)).toThrow(expected);
    expect(problem({ type: "nwc", connectionUri: uri })).toContain(expected);
  });

  it("never echoes the secret in its errors", () => {
    const uri = nwcUri(`relay=ws://r.example.com&secret=${secretHex}`);
    expect(() => parseNwcConnectionUri(uri)).toThrow();
    expect(problem({ type: "nwc", connectionUri: uri })).not.toContain(secretHex);
  });
});

describe("describeWallet", () => {
  const cases: [WalletCredentials, { host: string | null; label: string }][] = [
    [{ type: "dev" }, { host: null, label: "Dev Lightning node (regtest, built in)" }],
    [
      { type: "lnd", restUrl: "https://node.example.com:8080", macaroonHex },
      { host: "node.example.com:8080", label: "LND at node.example.com:8080" },
    ],
    [
      { type: "nwc", connectionUri: goodNwcUri },
      { host: "relay.example.com", label: `Nostr Wallet Connect ${walletPubkey.slice(0, 8)}… via relay.example.com` },
    ],
    [
      { type: "lnbits", url: "https://lnbits.example.com/x", invoiceKey: "a".repeat(32) },
      { host: "lnbits.example.com", label: "LNbits at lnbits.example.com" },
    ],
    [
      { type: "phoenixd", url: "http://localhost:9740", password: "hunter2" },
      { host: "localhost:9740", label: "phoenixd at localhost:9740" },
    ],
  ];

  it.each(cases)("describes %o by type and host, without secrets", (credentials, expected) => {
    const description = describeWallet(credentials);
    expect(description).toEqual({ type: credentials.type, ...expected });
    const shown = JSON.stringify(description);
    for (const secret of [macaroonHex, secretHex, "a".repeat(32), "hunter2"]) expect(shown).not.toContain(secret);
  });
});
