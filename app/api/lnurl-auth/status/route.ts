// GET /api/lnurl-auth/status?k1=: the sign-in page's poll. Once the wallet signed, the first poll
// from the browser that asked for the k1 gets an Auth.js session cookie.
import { withErrors } from "@/lib/api/handler.ts";
import { clearBrowserSecretCookie, readCookie, sessionCookie } from "@/lib/auth/cookies.ts";
import { LNURL_BROWSER_COOKIE } from "@/lib/config/platform-cookies.ts";
import { claimLoginChallenge } from "@/lib/auth/lnurl-auth.ts";
import { loginStatusResponseSchema } from "@/lib/auth/schemas.ts";

export const GET = withErrors(async ({ ctx, req }) => {
  const k1 = (new URL(req.url).searchParams.get("k1") ?? "").toLowerCase();
  const browserSecret = readCookie(req.headers.get("cookie"), LNURL_BROWSER_COOKIE) ?? "";
  const result = await claimLoginChallenge({ prisma: ctx.db.prisma, k1, browserSecret });
  const body = loginStatusResponseSchema.parse({ status: result.status });
  if (result.status !== "signed") return Response.json(body);
  const headers = new Headers();
  headers.append("set-cookie", sessionCookie(ctx.config.siteUrl, result.sessionToken, result.expires));
  headers.append("set-cookie", clearBrowserSecretCookie(ctx.config.siteUrl));
  return Response.json(body, { headers });
});
