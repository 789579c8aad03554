// Response shapes of the free-try routes (../shared/STYLE.md rule 2): the token a signed-in user gets, and
// the JWKS anyone verifies it with.
import { z } from "zod";

/** GET /api/free-try/token: a Bearer token for `Authorization: Bearer <token>` at any gateway of this platform. */
export const freeTryTokenResponseSchema = z.object({
  token: z.string(),
  tokenType: z.literal("Bearer"),
  expiresAt: z.iso.datetime(),
  issuer: z.string(),
  audience: z.string(),
});
/** The token route's response, typed for clients of the platform API. */
export type FreeTryTokenResponse = z.infer<typeof freeTryTokenResponseSchema>;

/** GET /api/.well-known/jwks.json: public keys only (an Ed25519 OKP key has no private `d` to leak, and we strip it anyway). */
export const jwksResponseSchema = z.object({
  keys: z.array(
    z.object({
      kty: z.string(),
      crv: z.string().optional(),
      x: z.string(),
      kid: z.string(),
      alg: z.string(),
      use: z.literal("sig"),
    }),
  ),
});
