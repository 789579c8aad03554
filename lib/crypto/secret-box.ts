// Encryption at rest for secrets we must use again (origin secrets, webhook secrets, wallet
// credentials): AES-256-GCM with a key derived from APP_SECRET. Hashing for secrets we only check.
import { createCipheriv, createDecipheriv, createHash, hash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** Derives a purpose-specific 32-byte key from the app secret (HKDF-SHA256). */
export function deriveKey(appSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", appSecret, "l402-hub", purpose, 32));
}

/** Encrypts UTF-8 text; output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function sealSecret(appSecret: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(appSecret, "secret-box"), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), body].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

/** Decrypts a value made by sealSecret; throws if it was tampered with or the key differs. */
export function openSecret(appSecret: string, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Malformed sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(appSecret, "secret-box"), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/**
 * SHA-256 hex of a token; what we store for API keys and session tokens. One-shot `hash` (a third
 * of createHash's cost): every session-token call hashes its token.
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

/** A random opaque token with a readable prefix, e.g. `hub_sk_...`. */
export function randomToken(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString("base64url")}`;
}

/** Constant-time string comparison for secrets of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
