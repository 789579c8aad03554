// Server-side loaders of the dashboard: the signed-in user (or a redirect to /signin back to the
// requested page) and the workspace of a /dashboard/<slug> URL (404 unless the user is a member).
// Wrapped in React's cache so a layout and its page share one lookup per request.
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { safeCallbackUrl } from "@/lib/auth/callback-url.ts";
import { auth } from "@/lib/auth/next-auth.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { getWorkspaceForUser } from "@/lib/workspaces/list-workspaces.ts";

/** A same-site path to return to after sign-in (lib/auth/callback-url.ts); anything else becomes /dashboard. */
export { safeCallbackUrl };

export type DashboardUser = { id: string; name: string | null; email: string | null };

export const requireUser = cache(async (): Promise<DashboardUser> => {
  const session = await auth();
  const user = session?.user;
  if (!user?.id) {
    const requested = safeCallbackUrl((await headers()).get("x-hub-pathname"));
    redirect(`/signin?callbackUrl=${encodeURIComponent(requested)}`);
  }
  return { id: user.id, name: user.name ?? null, email: user.email ?? null };
});

export const requireWorkspace = cache(async (slug: string) => {
  const [user, ctx] = await Promise.all([requireUser(), getServerContext()]);
  const workspace = await getWorkspaceForUser({ prisma: ctx.db.prisma, userId: user.id, slug });
  if (!workspace) notFound();
  return { user, ctx, ...workspace };
});
