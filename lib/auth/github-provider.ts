// GitHub sign-in whose e-mail address is one GitHub has verified. Anyone can add any address to a
// GitHub account without proving it, and Auth.js's GitHub provider takes the profile's public
// address or the primary one either way; invitations are accepted and accounts found by e-mail,
// so only an address `/user/emails` reports `verified` may become the user's e-mail.
import GitHub from "next-auth/providers/github";

/** One entry of GitHub's `GET /user/emails`. */
export type GithubEmail = { email: string; primary: boolean; verified: boolean };

/** The address a GitHub account proves: its verified primary address, else its first verified one, else null. */
export function verifiedGithubEmail(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const verified = emails.filter((e): e is GithubEmail => typeof e?.email === "string" && e.verified === true);
  return (verified.find((e) => e.primary) ?? verified[0])?.email ?? null;
}

export type FetchGithubProfileOptions = { accessToken: string; apiUrl: string };

/** `GET /user`, with `email` replaced by the verified address from `GET /user/emails` (or null). */
export async function fetchGithubProfile({ accessToken, apiUrl }: FetchGithubProfileOptions): Promise<Record<string, unknown>> {
  const headers = { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json", "user-agent": "l402-hub" };
  const [profileRes, emailsRes] = await Promise.all([fetch(`${apiUrl}/user`, { headers }), fetch(`${apiUrl}/user/emails`, { headers })]);
  if (!profileRes.ok) throw new Error(`GitHub answered ${profileRes.status} to GET /user`);
  const profile = (await profileRes.json()) as Record<string, unknown>;
  // Without the user:email scope (or on an error) there is no verified address: sign in without one.
  const emails: unknown = emailsRes.ok ? await emailsRes.json() : [];
  return { ...profile, email: verifiedGithubEmail(emails) };
}

export type GithubProviderOptions = {
  clientId: string;
  clientSecret: string;
  /** A GitHub Enterprise Server (or a local fake of it) instead of github.com. */
  baseUrl?: string;
};

/** Auth.js's GitHub provider, reading the e-mail address from `/user/emails` (verified only). */
export function githubProvider({ clientId, clientSecret, baseUrl }: GithubProviderOptions) {
  const apiUrl = baseUrl ? `${baseUrl}/api/v3` : "https://api.github.com";
  return GitHub({
    clientId,
    clientSecret,
    enterprise: baseUrl ? { baseUrl } : undefined,
    userinfo: {
      url: `${apiUrl}/user`,
      request: ({ tokens }: { tokens: { access_token?: string } }) => fetchGithubProfile({ accessToken: tokens.access_token ?? "", apiUrl }),
    },
  });
}
