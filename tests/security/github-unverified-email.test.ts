// GitHub sign-in with an unverified e-mail (issue 23, finding 8): anyone can add any address to a
// GitHub account without proving it, and Auth.js's GitHub provider took the primary address (or
// the profile's public one) whether GitHub had verified it or not; the sign-in event then accepted
// pending invitations for it, and the account kept the address, so an owner inviting it later
// added the impostor at once. Only an address GitHub reports `verified` counts; a magic link still
// proves its own address.
//
// The whole OAuth flow runs through Auth.js's real route handlers against a local fake of GitHub
// (Enterprise Server layout: /login/oauth/*, /api/v3/user, /api/v3/user/emails) that checks the
// client credentials, the authorization code, the PKCE verifier and the bearer token.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import NextAuth from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthConfig } from "@/lib/auth/auth-config.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { inviteMember } from "@/lib/workspaces/members.ts";
import { seedTenant, useApiContext } from "@/tests/api/helpers.ts";

const SITE = "http://127.0.0.1:3000";
const CLIENT = { clientId: "gh-client-id", clientSecret: "gh-client-secret" };
const api = useApiContext({ SITE_URL: SITE });

type GithubEmail = { email: string; primary: boolean; verified: boolean; visibility: "public" | "private" | null };
type GithubAccount = { id: number; login: string; name: string | null; publicEmail: string | null; emails: GithubEmail[] };

/** A fake GitHub: one pending authorization at a time, as the user approving the OAuth app. */
async function startFakeGithub() {
  let account: GithubAccount | null = null;
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === "POST" && url.pathname === "/login/oauth/access_token") {
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
      const [id, secret] = basic
        ? Buffer.from(basic[1], "base64").toString().split(":").map(decodeURIComponent)
        : [form.get("client_id"), form.get("client_secret")];
      if (id !== CLIENT.clientId || secret !== CLIENT.clientSecret) return json(401, { error: "incorrect_client_credentials" });
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      if (!grant || grant.redirectUri !== form.get("redirect_uri") || createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) {
        return json(200, { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." });
      }
      const token = `gho_${randomBytes(16).toString("hex")}`;
      tokens.add(token);
      return json(200, { access_token: token, token_type: "bearer", scope: "read:user,user:email" });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!bearer || !tokens.has(bearer) || !account) return json(401, { message: "Bad credentials" });
    if (req.method === "GET" && url.pathname === "/api/v3/user") {
      return json(200, { id: account.id, login: account.login, name: account.name, email: account.publicEmail, avatar_url: null });
    }
    if (req.method === "GET" && url.pathname === "/api/v3/user/emails") return json(200, account.emails);
    return json(404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    /** The user approves the app on GitHub's authorize page: GitHub answers with a code. */
    approve(authorizeUrl: URL, who: GithubAccount): string {
      expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${base}/login/oauth/authorize`);
      expect(authorizeUrl.searchParams.get("client_id")).toBe(CLIENT.clientId);
      expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
      account = who;
      const code = randomBytes(10).toString("hex");
      codes.set(code, { challenge: authorizeUrl.searchParams.get("code_challenge")!, redirectUri: authorizeUrl.searchParams.get("redirect_uri")! });
      return code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let github: Awaited<ReturnType<typeof startFakeGithub>>;
beforeAll(async () => {
  github = await startFakeGithub();
});
afterAll(async () => {
  await github?.close();
});

/** A cookie jar of name=value pairs, fed by Set-Cookie headers. */
function jarWith(jar: Map<string, string>, res: Response): string {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/** Signs in with GitHub through Auth.js's handlers; returns the signed-in user's id. */
async function signInWithGithub(who: GithubAccount): Promise<string> {
  const { db, config } = api.test();
  const auth = NextAuth(buildAuthConfig({ config: { ...config, github: CLIENT }, prisma: db.prisma, log: createLogger("silent"), githubBaseUrl: github.base }));
  const jar = new Map<string, string>();
  const csrf = await auth.handlers.GET(new Request(`${SITE}/api/auth/csrf`) as never);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const start = await auth.handlers.POST(
    new Request(`${SITE}/api/auth/signin/github`, {
      method: "POST",
      headers: { cookie: jarWith(jar, csrf), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, callbackUrl: "/dashboard" }),
    }) as never,
  );
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get("location")!);
  const code = github.approve(authorize, who);
  const state = authorize.searchParams.get("state");
  const callback = new URL(`${SITE}/api/auth/callback/github`);
  callback.searchParams.set("code", code);
  if (state) callback.searchParams.set("state", state);
  const done = await auth.handlers.GET(new Request(callback, { headers: { cookie: jarWith(jar, start) } }) as never);
  expect(done.status).toBe(302);
  expect(done.headers.get("location")).toBe(`${SITE}/dashboard`);
  jarWith(jar, done);
  const token = jar.get("authjs.session-token");
  expect(token, "no session cookie after the GitHub callback").toBeTruthy();
  return (await db.prisma.session.findUniqueOrThrow({ where: { sessionToken: token! } })).userId;
}

const VICTIM = "victim@example.com";

async function workspaceInviting(email: string) {
  const t = api.test();
  const { tenantId } = await seedTenant(t);
  await inviteMember({ prisma: t.db.prisma, tenantId, invite: { email, role: "member" }, invitedById: null });
  return tenantId;
}

async function membershipOf(tenantId: string, userId: string) {
  return api.test().db.prisma.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } } });
}

describe("GitHub sign-in and invitations", () => {
  it("does not accept an invitation for a primary address GitHub has not verified", async () => {
    const tenantId = await workspaceInviting(VICTIM);
    const userId = await signInWithGithub({
      id: 101,
      login: "impostor",
      name: "Impostor",
      publicEmail: null,
      emails: [{ email: VICTIM, primary: true, verified: false, visibility: "private" }],
    });
    expect(await membershipOf(tenantId, userId)).toBeNull();
    expect(await api.test().db.prisma.invitation.count({ where: { tenantId, email: VICTIM } })).toBe(1);
    // Nor does the account keep the address: a later invitation must not find the impostor.
    const user = await api.test().db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
    expect(user.email).not.toBe(VICTIM);
  });

  it("does not trust the profile's public address either", async () => {
    const tenantId = await workspaceInviting(VICTIM);
    const userId = await signInWithGithub({
      id: 102,
      login: "impostor2",
      name: null,
      publicEmail: VICTIM,
      emails: [
        { email: VICTIM, primary: false, verified: false, visibility: "public" },
        { email: "impostor2@example.net", primary: true, verified: true, visibility: "private" },
      ],
    });
    expect(await membershipOf(tenantId, userId)).toBeNull();
    const user = await api.test().db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
    expect(user.email).toBe("impostor2@example.net");
    // The owner now invites the victim's address: a pending invitation, not the impostor.
    const later = await inviteMember({ prisma: api.test().db.prisma, tenantId, invite: { email: VICTIM, role: "member" }, invitedById: null });
    expect(later.kind).toBe("invitation");
  });

  it("accepts the invitation for a verified primary address", async () => {
    const tenantId = await workspaceInviting(VICTIM);
    const userId = await signInWithGithub({
      id: 103,
      login: "victim",
      name: "Victim",
      publicEmail: null,
      emails: [
        { email: "old@example.org", primary: false, verified: false, visibility: null },
        { email: VICTIM, primary: true, verified: true, visibility: "private" },
      ],
    });
    expect(await membershipOf(tenantId, userId)).toMatchObject({ role: "member" });
    expect(await api.test().db.prisma.invitation.count({ where: { tenantId } })).toBe(0);
    expect((await api.test().db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).email).toBe(VICTIM);
  });

  it("signs in without an address when GitHub has verified none", async () => {
    const tenantId = await workspaceInviting(VICTIM);
    const userId = await signInWithGithub({
      id: 104,
      login: "unverified",
      name: null,
      publicEmail: null,
      emails: [{ email: VICTIM, primary: true, verified: false, visibility: null }],
    });
    expect((await api.test().db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).email).toBeNull();
    expect(await membershipOf(tenantId, userId)).toBeNull();
  });

  it("judges a returning account by what GitHub verifies now, not by the address stored on it", async () => {
    const { prisma } = api.test().db;
    // An account made before this check, which kept an address nobody proved.
    await prisma.user.create({
      data: { email: VICTIM, accounts: { create: { type: "oauth", provider: "github", providerAccountId: "105" } } },
    });
    const tenantId = await workspaceInviting("someone-else@example.com");
    await prisma.invitation.create({ data: { tenantId, email: VICTIM, role: "member" } });
    const userId = await signInWithGithub({
      id: 105,
      login: "returning",
      name: null,
      publicEmail: null,
      emails: [{ email: "returning@example.net", primary: true, verified: true, visibility: null }],
    });
    expect(await membershipOf(tenantId, userId)).toBeNull();
    expect(await prisma.invitation.count({ where: { tenantId, email: VICTIM } })).toBe(1);
  });

  it("still accepts the invitation when the address is proved by a magic link", async () => {
    const { db, config } = api.test();
    const tenantId = await workspaceInviting(VICTIM);
    const auth = NextAuth(buildAuthConfig({ config, prisma: db.prisma, log: createLogger("silent") }));
    const jar = new Map<string, string>();
    const csrf = await auth.handlers.GET(new Request(`${SITE}/api/auth/csrf`) as never);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const asked = await auth.handlers.POST(
      new Request(`${SITE}/api/auth/signin/nodemailer`, {
        method: "POST",
        headers: { cookie: jarWith(jar, csrf), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, email: VICTIM, callbackUrl: "/dashboard" }),
      }) as never,
    );
    expect(asked.status).toBe(302);
    const mail = await db.prisma.devMail.findFirstOrThrow({ where: { to: VICTIM } });
    const opened = await auth.handlers.GET(new Request(mail.url, { headers: { cookie: jarWith(jar, asked) } }) as never);
    expect(opened.status).toBe(302);
    const user = await db.prisma.user.findUniqueOrThrow({ where: { email: VICTIM } });
    expect(await membershipOf(tenantId, user.id)).toMatchObject({ role: "member" });
  });
});
