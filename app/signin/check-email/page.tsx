// /signin/check-email: after asking for a magic link (Auth.js verifyRequest page).
import type { Metadata } from "next";
import { getServerContext } from "@/lib/server-context.ts";

export const metadata: Metadata = { title: "Check your e-mail", robots: { index: false } };
export const dynamic = "force-dynamic";

export default async function CheckEmailPage() {
  const { config } = await getServerContext();
  return (
    <div className="mx-auto flex max-w-md flex-col gap-4 px-4 py-12 sm:px-6">
      <h1 className="text-2xl font-semibold tracking-tight">Check your e-mail</h1>
      <p className="text-muted">We sent you a sign-in link. It works once and expires in 24 hours.</p>
      {config.devMailbox ? (
        <p className="text-sm">
          Development install: open the{" "}
          <a href="/dev/mailbox" className="font-medium text-accent underline">
            dev mailbox
          </a>{" "}
          to find the link.
        </p>
      ) : null}
    </div>
  );
}
