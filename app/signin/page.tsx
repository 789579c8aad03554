// /signin: e-mail magic link, GitHub (when configured) and "Sign in with Lightning" (LNURL-auth).
// A signed-in visitor goes straight to where they were headed.
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { auth, emailSignInEnabled, signIn } from "@/lib/auth/next-auth.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { safeCallbackUrl } from "@/app/dashboard/session.ts";
import { LightningSignIn } from "./lightning-sign-in.tsx";

export const metadata: Metadata = { title: "Sign in", robots: { index: false } };
export const dynamic = "force-dynamic";

/** Auth.js error codes (`?error=`) in words. */
const errorMessages: Record<string, string> = {
  Verification: "That sign-in link has expired or was already used. Ask for a new one.",
  EmailSignin: "The sign-in e-mail could not be sent. Try again in a moment.",
  OAuthAccountNotLinked: "This e-mail address already signs in another way; use that method.",
  AccessDenied: "Sign-in was refused.",
  Configuration: "Sign-in is not configured correctly on this server.",
};

async function emailSignInAction(formData: FormData) {
  "use server";
  // redirect: false and our own redirect, so the address bar shows the check-email page itself.
  const next = await signIn("nodemailer", {
    email: String(formData.get("email") ?? ""),
    redirectTo: safeCallbackUrl(String(formData.get("callbackUrl") ?? "")),
    redirect: false,
  });
  const error = typeof next === "string" ? new URL(next, "http://x").searchParams.get("error") : null;
  redirect(error ? `/signin?error=${encodeURIComponent(error)}` : "/signin/check-email");
}

async function githubSignInAction(formData: FormData) {
  "use server";
  await signIn("github", { redirectTo: safeCallbackUrl(String(formData.get("callbackUrl") ?? "")) });
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(typeof params.callbackUrl === "string" ? params.callbackUrl : undefined);
  const session = await auth();
  if (session?.user?.id) redirect(callbackUrl);
  const { config, devNode } = await getServerContext();
  const error = typeof params.error === "string" ? (errorMessages[params.error] ?? "Sign-in failed. Try again.") : null;
  const email = emailSignInEnabled(config);

  return (
    <div className="mx-auto flex max-w-md flex-col gap-6 px-4 py-12 sm:px-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Sign in</h1>
        <p className="mt-2 text-sm text-muted">Sign in to put your API behind the gateway and manage it.</p>
      </div>
      {error ? (
        <p role="alert" className="rounded-lg border border-danger/40 bg-danger-soft px-4 py-3 text-sm text-danger">
          {error}
        </p>
      ) : null}
      {email ? (
        <section aria-labelledby="email-heading" className="card flex flex-col gap-3">
          <h2 id="email-heading" className="font-semibold">
            E-mail
          </h2>
          <form action={emailSignInAction} className="flex flex-col gap-3">
            <input type="hidden" name="callbackUrl" value={callbackUrl} />
            <label htmlFor="signin-email" className="text-sm font-medium">
              E-mail address
            </label>
            <input id="signin-email" name="email" type="email" required autoComplete="email" className="input-field" placeholder="you@example.com" />
            <button type="submit" className="btn-primary">
              Send sign-in link
            </button>
            {config.devMailbox ? (
              <p className="text-xs text-muted">
                Development: no e-mail is sent; the link appears in the server log and at{" "}
                <a href="/dev/mailbox" className="underline">
                  /dev/mailbox
                </a>
                .
              </p>
            ) : null}
          </form>
        </section>
      ) : null}
      {config.github ? (
        <form action={githubSignInAction}>
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <button type="submit" className="btn-secondary w-full">
            Sign in with GitHub
          </button>
        </form>
      ) : null}
      <LightningSignIn callbackUrl={callbackUrl} devWallet={Boolean(devNode)} />
    </div>
  );
}
