// What a provider submits to connect a receiving wallet, one member per backend, discriminated by
// `type`. Everything is validated before any network call, with messages that say what to paste:
// - dev:      nothing (the embedded dev node).
// - lnd:      REST URL, a macaroon (hex of invoice.macaroon, or one baked with
//             `lncli bakemacaroon invoices:read invoices:write info:read offchain:read`), and the node's
//             tls.cert PEM when it is self-signed.
// - nwc:      a NIP-47 connection URI `nostr+walletconnect://<wallet pubkey>?relay=wss://…&secret=<hex>`.
// - lnbits:   instance URL and the wallet's invoice key (never the admin key: receiving needs no spend right).
// - phoenixd: URL and the http-password from phoenix.conf (prefer http-password-limited-access).
// Wallet URLs must be https; plain http (and ws:// relays) only on loopback, where nothing crosses a network.
// The parsed value is sealed with lib/crypto/secret-box.ts before storage; describeWallet is what may be shown.
import { X509Certificate } from "node:crypto";
import { Point, utils as secpUtils } from "@noble/secp256k1";
// @ts-expect-error -- the macaroon package ships no type declarations; MacaroonParser types what we use.
import macaroonPackage from "macaroon";
import { z } from "zod";

type MacaroonParser = { importMacaroon(bytes: Uint8Array): unknown };
const macaroons = macaroonPackage as MacaroonParser;

/** The URI scheme NIP-47 wallet services hand out. */
export const NWC_URI_SCHEME = "nostr+walletconnect://";

/** Longest credential field we accept; real values are far shorter, this bounds parsing work. */
const MAX_FIELD_LENGTH = 16_384;
const HEX_32_BYTES = /^[0-9a-f]{64}$/i;

/** True for hosts that never leave the machine: localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * A wallet's base URL: https, or http on loopback only; no credentials, query or fragment (they
 * would be logged or dropped). Normalized without a trailing slash so paths can be appended.
 */
function walletBaseUrlSchema(example: string) {
  return z
    .string()
    .trim()
    .min(1, "is required")
    .max(2048, "must be at most 2048 characters")
    .transform((raw, ctx) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: `must be a URL such as ${example}` });
        return z.NEVER;
      }
      if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
        ctx.addIssue({ code: "custom", message: "must use https (plain http is only allowed for localhost)" });
        return z.NEVER;
      }
      if (url.username || url.password || url.search || url.hash) {
        ctx.addIssue({ code: "custom", message: "must not contain credentials, a query or a fragment" });
        return z.NEVER;
      }
      return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    });
}

/** Checks that hex text is a libmacaroons V2 binary macaroon, which is what LND issues and verifies. */
function isLndMacaroon(hex: string): boolean {
  const bytes = Buffer.from(hex, "hex");
  if (bytes[0] !== 2) return false; // LND rejects any other macaroon version
  try {
    macaroons.importMacaroon(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Parses a PEM certificate; null when the text is not one. */
function parseCertificate(pem: string): X509Certificate | null {
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) return null;
  try {
    return new X509Certificate(pem);
  } catch {
    return null;
  }
}

/** The dev node: no credentials. */
export const devCredentialsSchema = z.strictObject({ type: z.literal("dev") });

/** LND REST (https://lightning.engineering/api-docs/api/lnd/rest-endpoints). */
export const lndCredentialsSchema = z.strictObject({
  type: z.literal("lnd"),
  restUrl: walletBaseUrlSchema("https://mynode.example.com:8080"),
  macaroonHex: z
    .string()
    .trim()
    .max(MAX_FIELD_LENGTH, "is too long for a macaroon")
    .regex(/^(?:[0-9a-fA-F]{2})+$/, "must be the macaroon in hex (e.g. `xxd -ps -u -c 1000 invoice.macaroon`)")
    .transform((hex) => hex.toLowerCase())
    .refine(isLndMacaroon, "is not an LND macaroon (expected a V2 binary macaroon in hex)"),
  tlsCertPem: z
    .string()
    .trim()
    .max(MAX_FIELD_LENGTH, "is too long for a certificate")
    .refine((pem) => parseCertificate(pem) !== null, "must be a PEM certificate (the node's tls.cert)")
    .optional(),
});

/** A parsed NIP-47 connection URI. */
export type NwcConnection = {
  /** The wallet service's x-only public key (hex): requests are encrypted to it. */
  walletPubkey: string;
  /** Relay URLs, in URI order; the backend uses the first. */
  relayUrls: string[];
  /** The client secret key (hex) that signs requests and encrypts them. */
  secretHex: string;
  /** Lightning address the wallet suggested, if any (informational). */
  lud16: string | null;
};

/**
 * Parses and validates every part of a NIP-47 connection URI: scheme, wallet pubkey (a point on the
 * curve), at least one wss:// relay (ws:// only on loopback), and a usable 32-byte secret. Throws an
 * Error whose message names the faulty part and never echoes the secret.
 */
export function parseNwcConnectionUri(uri: string): NwcConnection {
  const trimmed = uri.trim();
  if (!trimmed.toLowerCase().startsWith(NWC_URI_SCHEME)) {
    throw new Error(`must start with ${NWC_URI_SCHEME}`);
  }
  const rest = trimmed.slice(NWC_URI_SCHEME.length);
  const queryStart = rest.indexOf("?");
  const walletPubkey = (queryStart === -1 ? rest : rest.slice(0, queryStart)).replace(/\/+$/, "").toLowerCase();
  if (!HEX_32_BYTES.test(walletPubkey)) {
    throw new Error("must name the wallet service's public key as 64 hex characters after the scheme");
  }
  try {
    Point.fromHex(`02${walletPubkey}`);
  } catch {
    throw new Error("names a wallet public key that is not a valid secp256k1 point");
  }
  const params = new URLSearchParams(queryStart === -1 ? "" : rest.slice(queryStart + 1));

  const relayUrls = params.getAll("relay").map((relay) => relay.trim());
  if (relayUrls.length === 0) throw new Error("must name at least one relay (relay=wss://…)");
  for (const relay of relayUrls) {
    let url: URL;
    try {
      url = new URL(relay);
    } catch {
      throw new Error("has a relay that is not a URL");
    }
    if (url.protocol !== "wss:" && !(url.protocol === "ws:" && isLoopbackHost(url.hostname))) {
      throw new Error("has a relay that does not use wss:// (ws:// is only allowed for localhost)");
    }
    if (url.username || url.password) throw new Error("has a relay URL with embedded credentials");
  }

  const secrets = params.getAll("secret");
  const secretHex = (secrets[0] ?? "").trim().toLowerCase();
  if (secrets.length !== 1 || !HEX_32_BYTES.test(secretHex)) {
    throw new Error("must carry exactly one secret of 64 hex characters");
  }
  if (!secpUtils.isValidSecretKey(Buffer.from(secretHex, "hex"))) {
    throw new Error("carries a secret that is not a valid secp256k1 secret key");
  }
  const lud16 = params.get("lud16")?.trim() || null;
  return { walletPubkey, relayUrls, secretHex, lud16 };
}

/** Nostr Wallet Connect (NIP-47): the connection URI the wallet service generated for us. */
export const nwcCredentialsSchema = z.strictObject({
  type: z.literal("nwc"),
  connectionUri: z
    .string()
    .trim()
    .max(MAX_FIELD_LENGTH, "is too long for a connection URI")
    .superRefine((uri, ctx) => {
      try {
        parseNwcConnectionUri(uri);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
});

/** LNbits: the instance URL (with any path prefix) and the wallet's invoice/read key. */
export const lnbitsCredentialsSchema = z.strictObject({
  type: z.literal("lnbits"),
  url: walletBaseUrlSchema("https://legend.lnbits.com"),
  invoiceKey: z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{32}$/, "must be the wallet's invoice/read key (32 hex characters)")
    .transform((key) => key.toLowerCase()),
});

/** phoenixd: its HTTP API URL and the http-password (Basic auth with an empty user name). */
export const phoenixdCredentialsSchema = z.strictObject({
  type: z.literal("phoenixd"),
  url: walletBaseUrlSchema("https://phoenixd.example.com"),
  password: z
    .string()
    .min(1, "is required")
    .max(1024, "is too long for a phoenixd password")
    // Control characters cannot survive phoenix.conf, and would corrupt the Basic auth header.
    .refine((password) => !/[\u0000-\u001f\u007f]/.test(password), "must not contain control characters"),
});

/** Every wallet a provider can connect, discriminated by `type`. */
export const walletCredentialsSchema = z.discriminatedUnion("type", [
  devCredentialsSchema,
  lndCredentialsSchema,
  nwcCredentialsSchema,
  lnbitsCredentialsSchema,
  phoenixdCredentialsSchema,
]);

/** Validated credentials of any backend (the value that gets sealed and stored). */
export type WalletCredentials = z.output<typeof walletCredentialsSchema>;
/** Validated dev credentials. */
export type DevCredentials = z.output<typeof devCredentialsSchema>;
/** Validated LND REST credentials. */
export type LndCredentials = z.output<typeof lndCredentialsSchema>;
/** Validated NWC credentials. */
export type NwcCredentials = z.output<typeof nwcCredentialsSchema>;
/** Validated LNbits credentials. */
export type LnbitsCredentials = z.output<typeof lnbitsCredentialsSchema>;
/** Validated phoenixd credentials. */
export type PhoenixdCredentials = z.output<typeof phoenixdCredentialsSchema>;

/** What the dashboard may show about a connected wallet: never a key, password or secret. */
export type WalletDescription = {
  type: WalletCredentials["type"];
  /** Host (and port) the platform talks to: the node for REST backends, the relay for NWC. */
  host: string | null;
  /** One human line, e.g. "LND at node.example.com:8080". */
  label: string;
};

/** Non-secret display information about validated credentials. */
export function describeWallet(credentials: WalletCredentials): WalletDescription {
  switch (credentials.type) {
    case "dev":
      return { type: "dev", host: null, label: "Dev Lightning node (regtest, built in)" };
    case "lnd": {
      const host = new URL(credentials.restUrl).host;
      return { type: "lnd", host, label: `LND at ${host}` };
    }
    case "nwc": {
      const connection = parseNwcConnectionUri(credentials.connectionUri);
      const host = new URL(connection.relayUrls[0]).host;
      return { type: "nwc", host, label: `Nostr Wallet Connect ${connection.walletPubkey.slice(0, 8)}… via ${host}` };
    }
    case "lnbits": {
      const host = new URL(credentials.url).host;
      return { type: "lnbits", host, label: `LNbits at ${host}` };
    }
    case "phoenixd": {
      const host = new URL(credentials.url).host;
      return { type: "phoenixd", host, label: `phoenixd at ${host}` };
    }
  }
}
