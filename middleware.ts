// Security headers on every page and platform API response. Next 16 still runs middleware.ts
// (it suggests proxy.ts); kept here so the headers apply before any route code runs.
// Dashboard pages: without an Auth.js session cookie the visit goes straight to /signin with a
// callbackUrl; with one, the dashboard layout checks the session itself (a stale cookie is sent to
// /signin there) and reads the requested path from `x-hub-pathname`.
import { NextResponse, type NextRequest } from "next/server";

const SESSION_COOKIES = ["authjs.session-token", "__Secure-authjs.session-token"];

function withSecurityHeaders(response: NextResponse): NextResponse {
  response.headers.set("x-content-type-options", "nosniff");
  response.headers.set("referrer-policy", "strict-origin-when-cross-origin");
  // Pages are never framed; badges and feeds are fetched, not framed.
  response.headers.set("x-frame-options", "DENY");
  response.headers.set("permissions-policy", "camera=(), microphone=(), geolocation=()");
  return response;
}

export function middleware(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (pathname === "/dashboard" || pathname.startsWith("/dashboard/")) {
    const callbackUrl = `${pathname}${search}`;
    if (!SESSION_COOKIES.some((name) => request.cookies.has(name))) {
      const signin = new URL("/signin", request.url);
      signin.searchParams.set("callbackUrl", callbackUrl);
      return withSecurityHeaders(NextResponse.redirect(signin));
    }
    const headers = new Headers(request.headers);
    headers.set("x-hub-pathname", callbackUrl);
    return withSecurityHeaders(NextResponse.next({ request: { headers } }));
  }
  return withSecurityHeaders(NextResponse.next());
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon\\.svg).*)"],
};
