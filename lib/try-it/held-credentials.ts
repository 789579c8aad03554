// What try-it shows of the credentials the SDK client keeps for the page session (sessionStorage):
// the endpoint's session token and the API's prepaid credit, under the scopes the client uses for
// them, so the page's labels ("Send (session token)", "credit left") say what the next call sends.
import type { L402CredentialStore, L402StoredCredit, L402StoredSession } from "@l402-hub/sdk/client";
import { providerScope } from "@l402-hub/sdk/client";

/** Prefix of try-it's entries in sessionStorage. */
export const TRY_IT_STORAGE_PREFIX = "l402-hub:try-it:";

/** One session per endpoint template of one gateway (the gateway scopes sessions so), e.g. `GET http://gw/gw/demo/v1/lucky/{name}`. */
export function tryItSessionScope(gatewayBase: string, method: string, pathTemplate: string): string {
  const path = pathTemplate.startsWith("/") ? pathTemplate : `/${pathTemplate}`;
  return `${method.toUpperCase()} ${gatewayBase.replace(/\/+$/, "")}${path}`;
}

/** The provider prepaid credit is kept under (every per_request endpoint of the gateway); null for an unusable address. */
export function tryItCreditProvider(gatewayBase: string): string | null {
  try {
    return providerScope(new URL(gatewayBase));
  } catch {
    return null;
  }
}

/** The session and credit the next call would present. */
export type HeldCredentials = { session: L402StoredSession | null; credit: L402StoredCredit | null };

/** Reads what is held; a session past its expiry is removed (the client would not send it either). */
export function readHeldCredentials(store: L402CredentialStore, where: { scope: string; provider: string | null; now?: number }): HeldCredentials {
  let session = store.getSession(where.scope);
  if (session?.expiresAt != null && session.expiresAt <= (where.now ?? Date.now())) {
    store.deleteSession(where.scope);
    session = null;
  }
  return { session, credit: where.provider === null ? null : store.getCredit(where.provider) };
}
