// Provider sign-in for the dashboard (Auth.js v5): database sessions through the Prisma adapter.
// Providers: e-mail magic links (Nodemailer; SMTP_URL, or the dev mailbox in development), GitHub
// when its OAuth app is configured; "Sign in with Lightning" (LNURL-auth) lives beside Auth.js in
// lib/auth/lnurl-auth.ts and writes the same database Session rows. The configuration is built
// lazily from the server context so Next's bundle shares server.ts's database.
import { PrismaAdapter } from "@auth/prisma-adapter";
import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import GitHub from "next-auth/providers/github";
import Nodemailer from "next-auth/providers/nodemailer";
import { requestOrigin } from "../api/handler.ts";
import { createLogger } from "../logging/logger.ts";
import { getServerContext } from "../server-context.ts";
import { acceptInvitations } from "../workspaces/members.ts";
import { deliverSignInMail } from "./sign-in-mail.ts";

/** Whether e-mail sign-in is offered: SMTP configured, or the dev mailbox. */
export function emailSignInEnabled(config: { smtpUrl: string | null; devMailbox: boolean }): boolean {
  return Boolean(config.smtpUrl || config.devMailbox);
}

export const { handlers, auth, signIn, signOut } = NextAuth(async () => {
  const { config, db } = await getServerContext();
  const log = createLogger(config.logLevel, { part: "auth" });
  const providers = [];
  if (emailSignInEnabled(config)) {
    providers.push(
      Nodemailer({
        // Unused by our sendVerificationRequest, but the provider refuses to start without one.
        server: config.smtpUrl ?? "smtp://localhost:25",
        from: config.emailFrom,
        sendVerificationRequest: ({ identifier, url }) => deliverSignInMail({ config, prisma: db.prisma, log, to: identifier, url }),
      }),
    );
  }
  if (config.github) providers.push(GitHub({ clientId: config.github.clientId, clientSecret: config.github.clientSecret }));
  return {
    // The adapter is typed against the default @prisma/client output; ours is generated under
    // lib/db/generated with the same models (User, Account, Session, VerificationToken).
    adapter: PrismaAdapter(db.prisma as unknown as Parameters<typeof PrismaAdapter>[0]),
    session: { strategy: "database" },
    secret: config.authSecret,
    // The app runs behind its own server.ts or a proxy; SITE_URL is the public address either way.
    trustHost: true,
    providers,
    pages: { signIn: "/signin", verifyRequest: "/signin/check-email", error: "/signin" },
    events: {
      // E-mail links and GitHub both prove the address, so pending invitations to it are accepted.
      async signIn({ user }) {
        if (user.id && user.email) await acceptInvitations({ prisma: db.prisma, userId: user.id, email: user.email });
      },
    },
  };
});

/**
 * Auth.js's route handlers, seeing the address the browser used. Next hands route handlers a URL
 * with "localhost" for any loopback address and its own hostname otherwise, while server actions
 * (sign-in) read the Host header; without this a magic link asked for at 127.0.0.1 would land on
 * localhost and lose its callbackUrl and cookie. Host is trusted exactly as `trustHost: true` says.
 * A plain Request, because NextRequest would normalize the loopback host again.
 */
export const authRouteHandlers = {
  GET: (req: NextRequest) => handlers.GET(atRequestedHost(req)),
  POST: (req: NextRequest) => handlers.POST(atRequestedHost(req)),
};

function atRequestedHost(req: NextRequest): NextRequest {
  const url = new URL(req.url);
  const requested = requestOrigin(req);
  if (requested === url.origin) return req;
  const init = { method: req.method, headers: req.headers, body: req.body, signal: req.signal, duplex: "half" } as RequestInit;
  return new Request(`${requested}${url.pathname}${url.search}`, init) as NextRequest;
}

/** The signed-in user's id for the current request (server side), or null without a session. */
export async function getSignedInUserId(): Promise<string | null> {
  const session = await auth();
  return session?.user?.id ?? null;
}
