// Provider sign-in for the dashboard (Auth.js v5): database sessions through the Prisma adapter,
// GitHub as the only provider and only when its OAuth app is configured. The configuration is
// built lazily from the server context so Next's bundle shares server.ts's database.
import { PrismaAdapter } from "@auth/prisma-adapter";
import NextAuth from "next-auth";
import GitHub from "next-auth/providers/github";
import { getServerContext } from "../server-context.ts";

export const { handlers, auth, signIn, signOut } = NextAuth(async () => {
  const { config, db } = await getServerContext();
  return {
    // The adapter is typed against the default @prisma/client output; ours is generated under
    // lib/db/generated with the same models (User, Account, Session, VerificationToken).
    adapter: PrismaAdapter(db.prisma as unknown as Parameters<typeof PrismaAdapter>[0]),
    session: { strategy: "database" },
    secret: config.authSecret,
    // The app runs behind its own server.ts or a proxy; SITE_URL is the public address either way.
    trustHost: true,
    providers: config.github ? [GitHub({ clientId: config.github.clientId, clientSecret: config.github.clientSecret })] : [],
  };
});

/** The signed-in user's id for the current request (server side), or null without a session. */
export async function getSignedInUserId(): Promise<string | null> {
  const session = await auth();
  return session?.user?.id ?? null;
}
