// What the REST wallet adapters (LND, LNbits, phoenixd) share: one JSON call with a timeout and an
// error that names the wallet and the status, never the credentials.

/** Reads a wallet's answer: JSON (or null for a non-JSON body) and the status. */
export async function walletCall(
  wallet: string,
  doFetch: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; ok: boolean; json: unknown; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`${wallet}: no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const res = await doFetch(url, { ...init, signal: controller.signal });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, ok: res.ok, json, text };
  } catch (err) {
    throw new Error(`${wallet}: ${controller.signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** A field of a JSON object answer, or undefined. */
export function field(json: unknown, name: string): unknown {
  return json && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>)[name] : undefined;
}

/** Base URL without a trailing slash. */
export function baseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

export const DEFAULT_PAY_TIMEOUT_MS = 60_000;
