// Magic-link e-mails for Auth.js's Nodemailer provider: sent through SMTP_URL, or, in development
// without SMTP, printed to the log and kept in the database for /dev/mailbox (shared by every web
// process of an install). Production without SMTP_URL offers no e-mail sign-in at all.
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { deliverMail, escapeHtml } from "@/lib/mail/deliver-mail.ts";

/** How many mails /dev/mailbox shows. */
export const DEV_MAILBOX_SIZE = 25;

export type SignInMailContent = { subject: string; text: string; html: string };

/** Subject and bodies of the sign-in e-mail (pure). */
export function signInMailContent({ url, host }: { url: string; host: string }): SignInMailContent {
  return {
    subject: `Sign in to L402 Hub (${host})`,
    text: `Sign in to L402 Hub (${host}) with this link:\n\n${url}\n\nThe link works once and expires in 24 hours. If you did not ask for it, ignore this e-mail.\n`,
    html: `<p>Sign in to <strong>L402 Hub</strong> (${escapeHtml(host)}):</p><p><a href="${escapeHtml(url)}">Sign in</a></p><p>The link works once and expires in 24 hours. If you did not ask for it, ignore this e-mail.</p>`,
  };
}

export type DeliverSignInMailOptions = {
  config: Pick<Config, "siteUrl" | "smtpUrl" | "emailFrom" | "devMailbox">;
  prisma: PrismaClient;
  log: Logger;
  to: string;
  url: string;
};

/** Sends the sign-in link (SMTP) or captures it for the dev mailbox. */
export async function deliverSignInMail({ config, prisma, log, to, url }: DeliverSignInMailOptions): Promise<void> {
  // A working sign-in link on another host hands that host the account: whatever built the URL,
  // only one on the configured site is ever mailed.
  const linkOrigin = new URL(url).origin;
  if (linkOrigin !== new URL(config.siteUrl).origin) throw new Error(`Refusing to mail a sign-in link to ${linkOrigin}: links must be on SITE_URL`);
  const content = signInMailContent({ url, host: new URL(url).host });
  if (!config.smtpUrl && !config.devMailbox) throw new Error("E-mail sign-in needs SMTP_URL outside development");
  await deliverMail({ config, prisma, log, to, content: { ...content, url } });
}

export type DevMailView = { id: string; to: string; subject: string; url: string; createdAt: Date };

/** The newest captured mails, optionally for one address. */
export async function listDevMail({ prisma, to, limit = DEV_MAILBOX_SIZE }: { prisma: PrismaClient; to?: string; limit?: number }): Promise<DevMailView[]> {
  return prisma.devMail.findMany({
    where: to ? { to: to.trim().toLowerCase() } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true, to: true, subject: true, url: true, createdAt: true },
  });
}
