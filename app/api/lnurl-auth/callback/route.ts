// GET /api/lnurl-auth/callback: the wallet's LUD-04 call with k1, its signature and linking key.
// Answers LUD-04 JSON (`{status: "OK"}` or `{status: "ERROR", reason}`) with a matching HTTP status.
import { AppError, toErrorResponse, validationError } from "@/lib/errors/index.ts";
import { verifyLoginSignature } from "@/lib/auth/lnurl-auth.ts";
import { lnurlAuthCallbackQuerySchema, type LnurlStatus } from "@/lib/auth/schemas.ts";
import { getServerContext } from "@/lib/server-context.ts";

export async function GET(req: Request): Promise<Response> {
  const headers = { "cache-control": "no-store", "access-control-allow-origin": "*" };
  try {
    const query = lnurlAuthCallbackQuerySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) throw validationError(query.error);
    const ctx = await getServerContext();
    await verifyLoginSignature({ prisma: ctx.db.prisma, k1: query.data.k1, sig: query.data.sig, key: query.data.key });
    return Response.json({ status: "OK" } satisfies LnurlStatus, { headers });
  } catch (err) {
    const { status, body } = toErrorResponse(err);
    const reason = err instanceof AppError ? body.error.message : "Internal error";
    return Response.json({ status: "ERROR", reason } satisfies LnurlStatus, { status, headers });
  }
}
