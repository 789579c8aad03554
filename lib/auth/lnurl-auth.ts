// "Sign in with Lightning" (LNURL-auth, LUD-04). The browser asks for a challenge (k1) and gets a
// cookie only it holds; the wallet signs k1 with its per-site linking key and calls our callback;
// the browser's poll then claims the signed challenge ONCE and receives a database session that
// Auth.js's Prisma adapter reads like any other. A k1 is signed once and claimed once (conditional
// updates), expires after CHALLENGE_TTL_MS, and only the browser that asked can claim it.
import { randomBytes } from "node:crypto";
import { verifyAsync } from "@noble/secp256k1";
import { hashToken, safeEqual } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { derToCompact } from "./der-signature.ts";
import { encodeLnurl } from "./lnurl.ts";

/** How long a challenge may be signed and claimed. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
/** Lifetime of the session a claim creates (Auth.js's default maxAge, 30 days). */
export const SESSION_MAX_AGE_MS = 30 * 24 * 3600_000;
/** Auth.js account provider id of Lightning linking keys. */
export const LNURL_AUTH_PROVIDER = "lnurl-auth";

export type LoginChallenge = {
  k1: string;
  /** Kept in an httpOnly cookie; proves the claiming browser is the one that asked. */
  browserSecret: string;
  /** The URL the wallet calls (`?tag=login&k1=…&action=login`). */
  callbackUrl: string;
  /** `LNURL1…`: what the QR code and the WebLN `lnurl()` call carry. */
  lnurl: string;
  expiresAt: Date;
};

export type CreateLoginChallengeOptions = { prisma: PrismaClient; apiUrl: string; now?: Date };

/** Issues a new k1 and removes challenges that ended more than an hour ago. */
export async function createLoginChallenge({ prisma, apiUrl, now = new Date() }: CreateLoginChallengeOptions): Promise<LoginChallenge> {
  const k1 = randomBytes(32).toString("hex");
  const browserSecret = randomBytes(24).toString("base64url");
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  await prisma.lnurlAuthChallenge.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 3600_000) } } });
  await prisma.lnurlAuthChallenge.create({ data: { k1, browserHash: hashToken(browserSecret), expiresAt } });
  const callbackUrl = `${apiUrl}/lnurl-auth/callback?tag=login&k1=${k1}&action=login`;
  return { k1, browserSecret, callbackUrl, lnurl: encodeLnurl(callbackUrl), expiresAt };
}

const HEX_32 = /^[0-9a-f]{64}$/;
const COMPRESSED_KEY = /^0[23][0-9a-f]{64}$/;
const DER_SIGNATURE = /^30[0-9a-f]{10,142}$/;

export type VerifyLoginSignatureOptions = {
  prisma: PrismaClient;
  k1: string;
  /** DER-encoded ECDSA signature of k1, hex. */
  sig: string;
  /** Compressed secp256k1 linking key, hex. */
  key: string;
  now?: Date;
};

/** Whether `sig` is the linking key's signature of the 32 bytes of k1 (no hashing: k1 is the digest). */
export async function isValidK1Signature(k1: string, sig: string, key: string): Promise<boolean> {
  if (!HEX_32.test(k1) || !COMPRESSED_KEY.test(key) || !DER_SIGNATURE.test(sig)) return false;
  const compact = derToCompact(Buffer.from(sig, "hex"));
  if (!compact) return false;
  try {
    // lowS: false accepts high-S signatures some wallets produce; k1 is single use, so the
    // malleability lowS guards against does not matter here.
    return await verifyAsync(compact, Buffer.from(k1, "hex"), Buffer.from(key, "hex"), { prehash: false, lowS: false });
  } catch {
    return false;
  }
}

/**
 * The wallet's callback: checks the signature, finds or creates the user of the linking key and
 * marks the challenge signed. Throws AppError (the wallet is told `{status: "ERROR", reason}`).
 */
export async function verifyLoginSignature({ prisma, k1, sig, key, now = new Date() }: VerifyLoginSignatureOptions): Promise<{ userId: string }> {
  k1 = k1.toLowerCase();
  key = key.toLowerCase();
  sig = sig.toLowerCase();
  if (!HEX_32.test(k1)) throw new AppError("bad_request", "k1 must be 32 bytes of hex");
  if (!COMPRESSED_KEY.test(key)) throw new AppError("bad_request", "key must be a compressed secp256k1 public key in hex");
  const challenge = await prisma.lnurlAuthChallenge.findUnique({ where: { k1 } });
  if (!challenge || challenge.expiresAt <= now) throw new AppError("not_found", "Unknown or expired k1; scan a new code");
  if (challenge.signedAt) throw new AppError("conflict", "This k1 was already used; scan a new code");
  if (!(await isValidK1Signature(k1, sig, key))) throw new AppError("unauthorized", "The signature does not verify with this key");
  return prisma.$transaction(async (tx) => {
    const account = await tx.account.findUnique({
      where: { provider_providerAccountId: { provider: LNURL_AUTH_PROVIDER, providerAccountId: key } },
      select: { userId: true },
    });
    const userId =
      account?.userId ??
      (
        await tx.user.create({
          data: {
            name: `Lightning ${key.slice(0, 8)}…${key.slice(-4)}`,
            accounts: { create: { type: LNURL_AUTH_PROVIDER, provider: LNURL_AUTH_PROVIDER, providerAccountId: key } },
          },
        })
      ).id;
    // Conditional: of two callbacks racing with the same k1, one wins and the other is a replay.
    const signed = await tx.lnurlAuthChallenge.updateMany({
      where: { k1, signedAt: null, expiresAt: { gt: now } },
      data: { signedAt: now, linkingKey: key, userId },
    });
    if (signed.count !== 1) throw new AppError("conflict", "This k1 was already used; scan a new code");
    return { userId };
  });
}

export type ClaimResult = { status: "pending" | "expired" | "unknown" } | { status: "signed"; sessionToken: string; expires: Date };

export type ClaimLoginChallengeOptions = { prisma: PrismaClient; k1: string; browserSecret: string; now?: Date };

/**
 * The browser's poll: "pending" until the wallet signed, then a new Auth.js database session for
 * the signed-in user, exactly once. Another browser's secret reads as "unknown".
 */
export async function claimLoginChallenge({ prisma, k1, browserSecret, now = new Date() }: ClaimLoginChallengeOptions): Promise<ClaimResult> {
  const challenge = HEX_32.test(k1) ? await prisma.lnurlAuthChallenge.findUnique({ where: { k1 } }) : null;
  if (!challenge || !browserSecret || !safeEqual(challenge.browserHash, hashToken(browserSecret))) return { status: "unknown" };
  if (challenge.claimedAt || challenge.expiresAt <= now) return { status: "expired" };
  if (!challenge.signedAt || !challenge.userId) return { status: "pending" };
  const userId = challenge.userId;
  const sessionToken = randomBytes(32).toString("hex");
  const expires = new Date(now.getTime() + SESSION_MAX_AGE_MS);
  const claimed = await prisma.$transaction(async (tx) => {
    const won = await tx.lnurlAuthChallenge.updateMany({ where: { k1, claimedAt: null }, data: { claimedAt: now } });
    if (won.count !== 1) return false;
    await tx.session.create({ data: { sessionToken, userId, expires } });
    return true;
  });
  return claimed ? { status: "signed", sessionToken, expires } : { status: "expired" };
}
