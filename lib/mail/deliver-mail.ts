// The platform's one mailer: nodemailer through SMTP_URL, or, in development without SMTP, the mail
// is logged and kept in the database for /dev/mailbox (shared by every process of an install).
// Sign-in links (lib/auth/sign-in-mail.ts) and listing review results (lib/listings) go through it.
import { createTransport } from "nodemailer";
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";

/** One e-mail: subject, plain and HTML bodies, and the link it is about (what /dev/mailbox shows). */
export type MailContent = { subject: string; text: string; html: string; url: string };

export type DeliverMailOptions = {
  config: Pick<Config, "smtpUrl" | "emailFrom" | "devMailbox">;
  prisma: PrismaClient;
  log: Logger;
  to: string;
  content: MailContent;
};

/** Escapes text for an HTML mail body. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Sends through SMTP (throws when the server refuses a recipient) or captures the mail for the dev
 * mailbox; throws when neither is configured.
 */
export async function deliverMail({ config, prisma, log, to, content }: DeliverMailOptions): Promise<void> {
  const { url, ...message } = content;
  if (config.smtpUrl) {
    const result = await createTransport(config.smtpUrl).sendMail({ to, from: config.emailFrom, ...message });
    const failed = [...(result.rejected ?? []), ...((result as { pending?: unknown[] }).pending ?? [])].filter(Boolean);
    if (failed.length) throw new Error(`E-mail to ${failed.map(String).join(", ")} could not be sent`);
    return;
  }
  if (!config.devMailbox) throw new Error("Sending e-mail needs SMTP_URL outside development");
  await prisma.devMail.create({ data: { to, subject: content.subject, text: content.text, url } });
  log.info("e-mail kept for /dev/mailbox (no SMTP_URL)", { to, subject: content.subject, url });
}
