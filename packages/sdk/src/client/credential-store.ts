// Where the L402 client keeps what it bought and may present again: session tokens per endpoint
// scope and prepaid-credit proofs per provider. In memory by default; a Web Storage store keeps
// them across page loads (sessionStorage: for the tab's life). Browser-safe.

/** A session model's token (X-Session-Token) and what the gateway last said about it. */
export type L402StoredSession = {
  token: string;
  /** Unix milliseconds from X-Session-Expires; null when the gateway did not say. */
  expiresAt: number | null;
  /** The last X-Session-Balance (units or sats, by model); null when unknown. */
  balance: number | null;
};

/** A provider's prepaid-credit proof and its last known balance. */
export type L402StoredCredit = {
  /** The `Authorization` value that spends the credit: `L402 <macaroon>:<preimage>`. */
  authorization: string;
  balanceSats: number | null;
};

/**
 * What the client needs of a store. Synchronous on purpose: the client compares and replaces
 * credentials between two awaits (drop a refused token only if no other request replaced it),
 * which stays atomic only when no read or write yields.
 */
export interface L402CredentialStore {
  getSession(scope: string): L402StoredSession | null;
  setSession(scope: string, session: L402StoredSession): void;
  deleteSession(scope: string): void;
  getCredit(provider: string): L402StoredCredit | null;
  setCredit(provider: string, credit: L402StoredCredit): void;
  deleteCredit(provider: string): void;
  /** Forgets every session and credit of this store. */
  clear(): void;
}

const copyOrNull = <T extends object>(value: T | undefined): T | null => (value ? { ...value } : null);

/** The client's default: maps that live as long as the client; reads and writes copy, as storage would. */
export function memoryCredentialStore(): L402CredentialStore {
  const sessions = new Map<string, L402StoredSession>();
  const credits = new Map<string, L402StoredCredit>();
  return {
    getSession: (scope) => copyOrNull(sessions.get(scope)),
    setSession: (scope, session) => void sessions.set(scope, { ...session }),
    deleteSession: (scope) => void sessions.delete(scope),
    getCredit: (provider) => copyOrNull(credits.get(provider)),
    setCredit: (provider, credit) => void credits.set(provider, { ...credit }),
    deleteCredit: (provider) => void credits.delete(provider),
    clear: () => {
      sessions.clear();
      credits.clear();
    },
  };
}

/** The part of the Web Storage API the store uses (sessionStorage or localStorage in a browser). */
export type WebStorageLike = Pick<Storage, "getItem" | "setItem" | "removeItem" | "key" | "length">;

export type WebStorageCredentialStoreOptions = {
  storage: WebStorageLike;
  /** Prefix of every key this store writes, so several stores (or apps) share one storage. */
  prefix?: string;
};

const AUTHORIZATION = /^L402 [^\s:]+:[0-9a-f]{64}$/;

function readJson(storage: WebStorageLike, key: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(storage.getItem(key) ?? "null") as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const numberOrNull = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);

/**
 * A store over Web Storage: one JSON entry per session scope and per provider. Unreadable or
 * malformed entries read as absent; a storage that refuses writes (quota, private mode) only
 * means credentials are not kept.
 */
export function webStorageCredentialStore({ storage, prefix = "l402:" }: WebStorageCredentialStoreOptions): L402CredentialStore {
  const sessionKey = (scope: string) => `${prefix}session:${scope}`;
  const creditKey = (provider: string) => `${prefix}credit:${provider}`;
  const write = (key: string, value: unknown) => {
    try {
      storage.setItem(key, JSON.stringify(value));
    } catch {
      // not kept; the client still holds nothing it relies on
    }
  };
  return {
    getSession(scope) {
      const raw = readJson(storage, sessionKey(scope));
      if (!raw || typeof raw.token !== "string" || raw.token === "") return null;
      return { token: raw.token, expiresAt: numberOrNull(raw.expiresAt), balance: numberOrNull(raw.balance) };
    },
    setSession: (scope, session) => write(sessionKey(scope), session),
    deleteSession: (scope) => storage.removeItem(sessionKey(scope)),
    getCredit(provider) {
      const raw = readJson(storage, creditKey(provider));
      if (!raw || typeof raw.authorization !== "string" || !AUTHORIZATION.test(raw.authorization)) return null;
      return { authorization: raw.authorization, balanceSats: numberOrNull(raw.balanceSats) };
    },
    setCredit: (provider, credit) => write(creditKey(provider), credit),
    deleteCredit: (provider) => storage.removeItem(creditKey(provider)),
    clear() {
      const keys: string[] = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        if (key !== null && (key.startsWith(`${prefix}session:`) || key.startsWith(`${prefix}credit:`))) keys.push(key);
      }
      for (const key of keys) storage.removeItem(key);
    },
  };
}
