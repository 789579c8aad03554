// /dev/mailbox: e-mails (sign-in links, listing review results) captured instead of sent (development without SMTP_URL). Not found
// anywhere else, production included.
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { listDevMail } from "@/lib/auth/sign-in-mail.ts";
import { getServerContext } from "@/lib/server-context.ts";

export const metadata: Metadata = { title: "Dev mailbox", robots: { index: false } };
export const dynamic = "force-dynamic";

export default async function DevMailboxPage() {
  const { config, db } = await getServerContext();
  if (!config.devMailbox) notFound();
  const mails = await listDevMail({ prisma: db.prisma });
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-10 sm:px-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Dev mailbox</h1>
        <p className="mt-2 text-sm text-muted">
          Sign-in links and listing review results of this development install (no <span className="font-mono">SMTP_URL</span>), newest first. Reload after
          asking for a link.
        </p>
      </div>
      {mails.length === 0 ? (
        <p className="card text-sm text-muted">No e-mails yet. Ask for a sign-in link on the sign-in page.</p>
      ) : (
        <ul className="flex flex-col gap-3">
          {mails.map((mail) => (
            <li key={mail.id}>
              <article aria-label={`E-mail to ${mail.to}`} className="card flex flex-col gap-1.5">
                <p className="text-sm">
                  <span className="text-muted">To</span> <span className="font-medium">{mail.to}</span>
                  <span className="text-muted"> · </span>
                  <time dateTime={mail.createdAt.toISOString()} className="text-muted">
                    {mail.createdAt.toUTCString()}
                  </time>
                </p>
                <p className="font-medium">{mail.subject}</p>
                <a href={mail.url} className="text-sm font-medium text-accent underline">
                  {mail.url.includes("/api/auth/") ? "Open the sign-in link" : "Open the link"}
                </a>
              </article>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
