// Dashboard frame: requires a signed-in user (signed-out visits go to /signin), provides the query
// client and toasts, and shows who is signed in with a sign-out button.
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { signOut } from "@/lib/auth/next-auth.ts";
import { DashboardProviders } from "./_components/providers.tsx";
import { requireUser } from "./session.ts";

export const metadata: Metadata = { title: { default: "Dashboard", template: "%s · Dashboard · L402 Hub" }, robots: { index: false } };

async function signOutAction() {
  "use server";
  await signOut({ redirectTo: "/" });
}

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <DashboardProviders>
      <div className="border-b border-line bg-surface-subtle">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-2 text-sm sm:px-6">
          <p className="min-w-0 truncate text-muted">
            Signed in as <span className="font-medium text-foreground">{user.email ?? user.name ?? "you"}</span>
          </p>
          <form action={signOutAction}>
            <button type="submit" className="rounded-md px-2 py-1 font-medium text-muted hover:bg-surface hover:text-foreground">
              Sign out
            </button>
          </form>
        </div>
      </div>
      {children}
    </DashboardProviders>
  );
}
