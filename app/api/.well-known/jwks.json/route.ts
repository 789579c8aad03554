// GET /api/.well-known/jwks.json: the public key of our free-try token issuer (RFC 7517).
import { withErrors } from "@/lib/api/handler.ts";
import { freeTryJwks } from "@/lib/payments/free-try-issuer.ts";
import { jwksResponseSchema } from "@/lib/payments/free-try-schemas.ts";

export const dynamic = "force-dynamic";

export const GET = withErrors(async ({ ctx }) =>
  Response.json(jwksResponseSchema.parse(await freeTryJwks(ctx.config.appSecret)), {
    // Verifiers cache the key set; it changes only if APP_SECRET does.
    headers: { "cache-control": "public, max-age=3600", "access-control-allow-origin": "*" },
  }),
);
