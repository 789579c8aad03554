// The Auth.js (next-auth v5) configuration: database sessions through the Prisma adapter, e-mail
// magic links (Nodemailer; SMTP_URL, or the dev mailbox) and GitHub when its OAuth app is
// configured. Built from a Config and a database so the route handlers, the /signin server actions
// and the tests all run the same configuration.
import { PrismaAdapter } from "@auth/prisma-adapter";
import type { NextAuthConfig } from "next-auth";
import Nodemailer from "next-auth/providers/nodemailer";
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { acceptInvitations } from "@/lib/workspaces/members.ts";
import { siteRedirectUrl } from "./callback-url.ts";
import { githubProvider } from "./github-provider.ts";
import { deliverSignInMail } from "./sign-in-mail.ts";

/** Where Auth.js's routes live (app/api/auth/[...nextauth]). */
export const AUTH_BASE_PATH = "/api/auth";

/** Whether e-mail sign-in is offered: SMTP configured, or the dev mailbox. */
export function emailSignInEnabled(config: { smtpUrl: string | null; devMailbox: boolean }): boolean {
  return Boolean(config.smtpUrl || config.devMailbox);
}

/** The configured site's origin: the only origin Auth.js is ever told it runs on. */
export function siteOrigin(config: Pick<Config, "siteUrl">): string {
  return new URL(config.siteUrl).origin;
}

export type BuildAuthConfigOptions = {
  config: Pick<Config, "siteUrl" | "authSecret" | "smtpUrl" | "emailFrom" | "devMailbox" | "github">;
  prisma: PrismaClient;
  log: Logger;
  /** A GitHub Enterprise Server (or a local fake of it) instead of github.com. */
  githubBaseUrl?: string;
};

type SignInEvent = Parameters<NonNullable<NonNullable<NextAuthConfig["events"]>["signIn"]>>[0];

/**
 * The e-mail address a sign-in proved, or null: the address a magic link was opened from, or the
 * address GitHub verified (github-provider.ts puts only that in the profile). Not the user row's
 * address: an account may have been created with one nobody proved.
 */
export function provenEmail({ user, account, profile }: Pick<SignInEvent, "user" | "account" | "profile">): string | null {
  if (account?.type === "email") return user.email ?? null;
  if (account?.provider === "github" && typeof profile?.email === "string") return profile.email;
  return null;
}

/** The Auth.js configuration of this install. */
export function buildAuthConfig({ config, prisma, log, githubBaseUrl }: BuildAuthConfigOptions): NextAuthConfig {
  const origin = siteOrigin(config);
  const providers: NextAuthConfig["providers"] = [];
  if (emailSignInEnabled(config)) {
    providers.push(
      Nodemailer({
        // Unused by our sendVerificationRequest, but the provider refuses to start without one.
        server: config.smtpUrl ?? "smtp://localhost:25",
        from: config.emailFrom,
        sendVerificationRequest: ({ identifier, url }) => deliverSignInMail({ config, prisma, log, to: identifier, url }),
      }),
    );
  }
  if (config.github) providers.push(githubProvider({ ...config.github, baseUrl: githubBaseUrl }));
  return {
    // The adapter is typed against the default @prisma/client output; ours is generated under
    // lib/db/generated with the same models (User, Account, Session, VerificationToken).
    adapter: PrismaAdapter(prisma as unknown as Parameters<typeof PrismaAdapter>[0]),
    session: { strategy: "database" },
    secret: config.authSecret,
    basePath: AUTH_BASE_PATH,
    // Every request Auth.js sees is rebuilt on SITE_URL first (lib/auth/next-auth.ts), so the URL it
    // trusts is our configuration, never the caller's Host or X-Forwarded-Host.
    trustHost: true,
    // Cookie names and the Secure flag follow SITE_URL's scheme, not a forgeable X-Forwarded-Proto.
    useSecureCookies: config.siteUrl.startsWith("https:"),
    providers,
    pages: { signIn: "/signin", verifyRequest: "/signin/check-email", error: "/signin" },
    callbacks: {
      // Every redirect after sign-in or sign-out lands on a same-site path (callbackUrl from the
      // form, the magic link or Auth.js's cookie), never on another host.
      redirect: ({ url }) => siteRedirectUrl(url, origin),
    },
    events: {
      // Pending invitations to the address this sign-in proved become memberships.
      async signIn({ user, account, profile }) {
        const email = provenEmail({ user, account, profile });
        if (user.id && email) await acceptInvitations({ prisma, userId: user.id, email });
      },
    },
  };
}
