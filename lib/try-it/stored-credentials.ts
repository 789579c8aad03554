// What try-it keeps for the page session (sessionStorage): session tokens per endpoint (session
// models) and prepaid credit per API, so later calls reuse them instead of paying again. Pure
// over a Storage-like object, so it runs in the browser and in tests alike.

/** The part of the Web Storage API used here (sessionStorage in the browser). */
export type KeyStore = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** A session-model token (X-Session-Token) with what the gateway last said about it. */
export type StoredSession = { token: string; expiresAt: string | null; balance: string | null };

/** Prepaid credit: the L402 proof spendable on the API's per_request endpoints, and its balance. */
export type StoredCredit = { macaroon: string; preimage: string; boughtSats: number; balanceSats: number | null };

const PREFIX = "l402-hub:try-it";

/** Sessions belong to one endpoint of one gateway (the gateway scopes them so). */
export function sessionKey(gatewayBase: string, method: string, pathTemplate: string): string {
  return `${PREFIX}:session:${gatewayBase} ${method.toUpperCase()} ${pathTemplate}`;
}

/** Credit belongs to one provider: every per_request endpoint of that gateway. */
export function creditKey(gatewayBase: string): string {
  return `${PREFIX}:credit:${gatewayBase}`;
}

function readJson(store: KeyStore, key: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(store.getItem(key) ?? "null") as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const text = (v: unknown) => (typeof v === "string" ? v : null);

/** The stored session, or null when none, unreadable, or past its expiry (then it is removed). */
export function readSession(store: KeyStore, key: string, now: Date = new Date()): StoredSession | null {
  const raw = readJson(store, key);
  const token = text(raw?.token);
  if (!raw || !token) return null;
  const expiresAt = text(raw.expiresAt);
  if (expiresAt && Date.parse(expiresAt) <= now.getTime()) {
    store.removeItem(key);
    return null;
  }
  return { token, expiresAt, balance: text(raw.balance) };
}

/**
 * Records what a response said about the session: a new token (X-Session-Token), its expiry on
 * creation, and the balance. Returns the session now stored, or null when there is none.
 */
export function updateSession(store: KeyStore, key: string, headers: Pick<Headers, "get">, sentToken: string | null): StoredSession | null {
  const issued = headers.get("x-session-token");
  const token = issued ?? sentToken;
  if (!token) return null;
  const previous = readSession(store, key);
  const session: StoredSession = {
    token,
    expiresAt: headers.get("x-session-expires") ?? (previous?.token === token ? previous.expiresAt : null),
    balance: headers.get("x-session-balance") ?? (previous?.token === token ? previous.balance : null),
  };
  store.setItem(key, JSON.stringify(session));
  return session;
}

export function readCredit(store: KeyStore, key: string): StoredCredit | null {
  const raw = readJson(store, key);
  const macaroon = text(raw?.macaroon);
  const preimage = text(raw?.preimage);
  if (!raw || !macaroon || !preimage || !/^[0-9a-f]{64}$/.test(preimage)) return null;
  const boughtSats = typeof raw.boughtSats === "number" ? raw.boughtSats : 0;
  const balanceSats = typeof raw.balanceSats === "number" ? raw.balanceSats : null;
  return { macaroon, preimage, boughtSats, balanceSats };
}

export function writeCredit(store: KeyStore, key: string, credit: StoredCredit): void {
  store.setItem(key, JSON.stringify(credit));
}

/** The balance a credit-paid response reports (X-Session-Balance), or null when it says none. */
export function creditBalanceFrom(headers: Pick<Headers, "get">): number | null {
  const value = headers.get("x-session-balance");
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

export function forget(store: KeyStore, key: string): void {
  store.removeItem(key);
}
