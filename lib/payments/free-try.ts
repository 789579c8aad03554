// Free try (spec 4.1 rule 3, 8): `Authorization: Bearer <JWT>` from our own issuer or from the
// identity provider configured by FREE_TRY_ISSUER / FREE_TRY_JWKS_URL / FREE_TRY_AUDIENCE buys one
// request per endpoint per user per UTC day. The quota is one INSERT … ON CONFLICT DO NOTHING on
// FreeTryUse (endpointId, userKey, day), so concurrent requests of one user get one free call.
import { createHash } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTVerifyGetKey, type KeyObject } from "jose";
import type { PrismaClient } from "@/lib/db/client.ts";
import { FREE_TRY_ALGORITHM, FREE_TRY_AUDIENCE, freeTryIssuerKeys } from "./free-try-issuer.ts";

/**
 * What a bearer token is worth: a user (by a hash of issuer and subject), `expired` (a genuine
 * token past its time), `invalid` (forged, wrong issuer or audience, malformed), or `unverifiable`
 * (the identity provider's keys cannot be fetched right now: no free call, but no accusation).
 */
export type FreeTryCheck = { ok: true; userKey: string } | { ok: false; reason: "expired" | "invalid" | "unverifiable" };

/** Verifies free-try bearer tokens; the gateway owns one per process. */
export type FreeTryVerifier = { verify(token: string, now: Date): Promise<FreeTryCheck> };

/** The external identity provider, when configured (all three variables together). */
export type ExternalIdentityProvider = { issuer: string; jwksUrl: string; audience: string };

/** The issuers a verifier trusts: ours (keys from APP_SECRET) and, optionally, one external provider. */
export type FreeTryVerifierOptions = {
  appSecret: string;
  /** Our own issuer identifier (SITE_URL). */
  ownIssuer: string;
  external: ExternalIdentityProvider | null;
  /** How long a JWKS fetch may take before the token counts as unverifiable. */
  jwksTimeoutMs?: number;
};

/** Algorithms accepted from an external identity provider (asymmetric only: no shared secrets). */
const EXTERNAL_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];

/** Longest bearer token we try to verify; ID tokens are a few KB at most. */
const MAX_TOKEN_LENGTH = 8192;

/** The FreeTryUse key of a user: a hash, so no e-mail or provider id is stored with the quota. */
export function freeTryUserKey(issuer: string, subject: string): string {
  return createHash("sha256").update(`${issuer}\n${subject}`).digest("hex");
}

/** Builds the verifier: our own key locally, the external provider's through its (cached) JWKS. */
export function createFreeTryVerifier(options: FreeTryVerifierOptions): FreeTryVerifier {
  let ownKey: Promise<KeyObject> | null = null;
  const external = options.external;
  const remoteKeys: JWTVerifyGetKey | null = external
    ? createRemoteJWKSet(new URL(external.jwksUrl), { timeoutDuration: options.jwksTimeoutMs ?? 3000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })
    : null;

  return {
    async verify(token, now) {
      if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: "invalid" };
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        return { ok: false, reason: "invalid" };
      }
      try {
        let subject: string | undefined;
        if (issuer === options.ownIssuer) {
          ownKey ??= freeTryIssuerKeys(options.appSecret).then((k) => k.publicKey);
          const { payload } = await jwtVerify(token, await ownKey, {
            issuer: options.ownIssuer,
            audience: FREE_TRY_AUDIENCE,
            algorithms: [FREE_TRY_ALGORITHM],
            currentDate: now,
            requiredClaims: ["sub", "exp"],
          });
          subject = payload.sub;
        } else if (external && remoteKeys && issuer === external.issuer) {
          const { payload } = await jwtVerify(token, remoteKeys, {
            issuer: external.issuer,
            audience: external.audience,
            algorithms: EXTERNAL_ALGORITHMS,
            currentDate: now,
            clockTolerance: 30,
            requiredClaims: ["sub", "exp"],
          });
          subject = payload.sub;
        } else {
          return { ok: false, reason: "invalid" };
        }
        if (!subject) return { ok: false, reason: "invalid" };
        return { ok: true, userKey: freeTryUserKey(String(issuer), subject) };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: "expired" };
        if (err instanceof joseErrors.JWKSTimeout || err instanceof joseErrors.JWKSInvalid || isFetchFailure(err)) return { ok: false, reason: "unverifiable" };
        return { ok: false, reason: "invalid" };
      }
    },
  };
}

/** A network failure while fetching the JWKS (jose rethrows fetch's TypeError). */
function isFetchFailure(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof joseErrors.JOSEError && err.code === "ERR_JOSE_GENERIC");
}

/** The UTC day of an instant, as the FreeTryUse.day key (YYYY-MM-DD). */
export function freeTryDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** One free try: which endpoint, which user, which UTC day (YYYY-MM-DD). */
export type FreeTryUse = { endpointId: string; userKey: string; day: string };

/** Takes today's free try of this endpoint for this user; null when it was already taken. */
export async function claimFreeTry(options: { prisma: PrismaClient; endpointId: string; userKey: string; now: Date }): Promise<FreeTryUse | null> {
  const { prisma, endpointId, userKey, now } = options;
  const day = freeTryDay(now);
  const rows = await prisma.$queryRaw<{ endpointId: string }[]>`
    INSERT INTO "FreeTryUse" ("endpointId", "userKey", "day", "createdAt")
    VALUES (${endpointId}, ${userKey}, ${day}::date, ${now})
    ON CONFLICT ("endpointId", "userKey", "day") DO NOTHING
    RETURNING "endpointId"`;
  return rows.length === 1 ? { endpointId, userKey, day } : null;
}

/** Gives a free try back after an upstream failure (the user got nothing), so the retry is free too. */
export async function releaseFreeTry(options: { prisma: PrismaClient; use: FreeTryUse }): Promise<void> {
  const { endpointId, userKey, day } = options.use;
  await options.prisma.$executeRaw`
    DELETE FROM "FreeTryUse" WHERE "endpointId" = ${endpointId} AND "userKey" = ${userKey} AND "day" = ${day}::date`;
}
