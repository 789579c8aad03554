// LNURL-auth (LUD-04) wire shapes: the wallet's callback query, the challenge the sign-in page gets,
// the poll's answer and the dev wallet's request.
import { z } from "zod";

/** GET /api/lnurl-auth/callback?tag=login&k1=&sig=&key=[&action=] */
export const lnurlAuthCallbackQuerySchema = z.object({
  tag: z.literal("login", { message: "tag must be login" }),
  k1: z.string().regex(/^[0-9a-fA-F]{64}$/, "k1 must be 32 bytes of hex"),
  sig: z.string().regex(/^[0-9a-fA-F]{16,144}$/, "sig must be a hex DER signature"),
  key: z.string().regex(/^0[23][0-9a-fA-F]{64}$/, "key must be a compressed public key in hex"),
  action: z.enum(["register", "login", "link", "auth"]).optional(),
});

/** LUD-04's answer to the wallet. */
export type LnurlStatus = { status: "OK" } | { status: "ERROR"; reason: string };

/** POST /api/lnurl-auth/challenge */
export const loginChallengeResponseSchema = z.object({
  k1: z.string(),
  lnurl: z.string(),
  callbackUrl: z.string(),
  expiresAt: z.date().transform((d) => d.toISOString()),
});
export type LoginChallengeResponse = z.output<typeof loginChallengeResponseSchema>;

/** GET /api/lnurl-auth/status?k1= */
export const loginStatusResponseSchema = z.object({ status: z.enum(["pending", "signed", "expired", "unknown"]) });
export type LoginStatusResponse = z.output<typeof loginStatusResponseSchema>;

/** POST /api/dev/lnurl-auth */
export const devLoginSignSchema = z.strictObject({ k1: z.string().regex(/^[0-9a-f]{64}$/, "k1 must be 32 bytes of lowercase hex") });
