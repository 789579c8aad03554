// The dev wallet's LNURL-auth signer (development installs with the dev Lightning node on): a
// linking key derived from APP_SECRET and the site's domain, like LUD-05 derives one per domain
// from a wallet seed. Everyone using one dev install signs in as the same "dev wallet" user.
import { getPublicKey, signAsync, utils as secpUtils } from "@noble/secp256k1";
import { deriveKey } from "@/lib/crypto/secret-box.ts";
import { compactToDer } from "./der-signature.ts";

/** The dev wallet's linking key pair for a domain. */
export function devLinkingKey(appSecret: string, domain: string): { secretKey: Uint8Array; publicKey: string } {
  const secretKey = new Uint8Array(deriveKey(appSecret, `dev-lnurl-auth:${domain}`));
  if (!secpUtils.isValidSecretKey(secretKey)) throw new Error("derived linking key is out of range");
  return { secretKey, publicKey: Buffer.from(getPublicKey(secretKey, true)).toString("hex") };
}

/** Signs k1 as a LUD-04 wallet does: DER ECDSA over the 32 raw bytes. */
export async function signK1(secretKey: Uint8Array, k1: string): Promise<string> {
  const sig = await signAsync(Buffer.from(k1, "hex"), secretKey, { prehash: false });
  return Buffer.from(compactToDer(sig)).toString("hex");
}
