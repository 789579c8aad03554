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
// This is the URL's shape only: which addresses a wallet may be at is decided on save by
// lib/wallets/check-wallet-targets.ts and at every connection by ./wallet-network.ts.
// The parsed value is sealed with lib/crypto/secret-box.ts before storage; describeWallet is what may be shown.
import { X509Certificate } from "node:crypto";
// @ts-expect-error -- the macaroon package ships no type declarations; MacaroonParser types what we use.
import macaroonPackage from "macaroon";
import { z } from "zod";
import { isLoopbackHost, parseNwcConnectionUri } from "@l402-hub/sdk/client/wallets/nwc-uri";

export { isLoopbackHost, NWC_URI_SCHEME, parseNwcConnectionUri, type NwcConnection } from "@l402-hub/sdk/client/wallets/nwc-uri";

type MacaroonParser = { importMacaroon(bytes: Uint8Array): unknown };
const macaroons = macaroonPackage as MacaroonParser;

/** Longest credential field we accept; real values are far shorter, this bounds parsing work. */
const MAX_FIELD_LENGTH = 16_384;

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
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
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
