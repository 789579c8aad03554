// NIP-47 connection URIs (`nostr+walletconnect://<wallet pubkey>?relay=wss://…&secret=<hex>`),
// parsed and validated in one place for the consumer SDK's NWC payer (./nwc-wallet.ts) and the
// server's wallet credentials (lib/lightning/credentials.ts), which import it from the SDK.
// Browser-safe: URL, URLSearchParams and @noble/secp256k1 only.
import { Point, utils as secpUtils } from "@noble/secp256k1";

/** The URI scheme NIP-47 wallet services hand out. */
export const NWC_URI_SCHEME = "nostr+walletconnect://";

const HEX_32_BYTES = /^[0-9a-f]{64}$/i;

/** True for hosts that never leave the machine: localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

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
  if (!secpUtils.isValidSecretKey(Uint8Array.from(secretHex.match(/../g)!, (byte) => parseInt(byte, 16)))) {
    throw new Error("carries a secret that is not a valid secp256k1 secret key");
  }
  const lud16 = params.get("lud16")?.trim() || null;
  return { walletPubkey, relayUrls, secretHex, lud16 };
}
