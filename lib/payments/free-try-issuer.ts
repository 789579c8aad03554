// The platform's own free-try token issuer (spec 4.1 rule 3): signed-in users get a short-lived
// JWT from GET /api/free-try/token; gateways and anyone else verify it with the public key served
// at GET /api/.well-known/jwks.json. The Ed25519 key pair is derived from APP_SECRET (HKDF, purpose
// "free-try-issuer"), so every web and gateway process of one install agrees on it with nothing
// stored, exactly like the L402 root key and the dev node key.
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from "jose";
import { deriveKey } from "@/lib/crypto/secret-box.ts";

/** The `aud` of our own free-try tokens: they are meant for the gateways of this platform. */
export const FREE_TRY_AUDIENCE = "l402-hub:free-try";
/** Lifetime of a free-try token: long enough for a visit, short enough that a leaked one lapses. */
export const FREE_TRY_TOKEN_TTL_SECONDS = 3600;
/** The JWS algorithm of our tokens (Ed25519). */
export const FREE_TRY_ALGORITHM = "EdDSA";

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** Our signing key, its public JWK (with kid = RFC 7638 thumbprint) for the JWKS. */
export type FreeTryIssuerKeys = { privateKey: KeyObject; publicKey: KeyObject; kid: string; publicJwk: JWK };

let cached: { appSecret: string; keys: Promise<FreeTryIssuerKeys> } | null = null;

/** The issuer key pair of this install (derived once per process). */
export function freeTryIssuerKeys(appSecret: string): Promise<FreeTryIssuerKeys> {
  if (cached?.appSecret === appSecret) return cached.keys;
  const keys = (async () => {
    const seed = deriveKey(appSecret, "free-try-issuer");
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    const publicKey = createPublicKey(privateKey);
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return { privateKey, publicKey, kid, publicJwk: { ...jwk, kid, alg: FREE_TRY_ALGORITHM, use: "sig" } };
  })();
  cached = { appSecret, keys };
  return keys;
}

/** The JWKS document served at /api/.well-known/jwks.json. */
export async function freeTryJwks(appSecret: string): Promise<{ keys: JWK[] }> {
  return { keys: [(await freeTryIssuerKeys(appSecret)).publicJwk] };
}

/** Who gets a token, from which issuer identifier; `now` is injectable for tests. */
export type MintFreeTryTokenOptions = {
  appSecret: string;
  /** Our issuer identifier: the site's base address (SITE_URL). */
  issuer: string;
  /** The signed-in user's id: the free-try quota is per user. */
  userId: string;
  now?: Date;
};

/** A signed free-try token for a signed-in user. */
export async function mintFreeTryToken(options: MintFreeTryTokenOptions): Promise<{ token: string; expiresAt: Date }> {
  const keys = await freeTryIssuerKeys(options.appSecret);
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const expiresAt = issuedAt + FREE_TRY_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: FREE_TRY_ALGORITHM, kid: keys.kid, typ: "JWT" })
    .setIssuer(options.issuer)
    .setSubject(options.userId)
    .setAudience(FREE_TRY_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(keys.privateKey);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}
