// The HTTP transport shared by the REST wallet backends (LND REST, LNbits, phoenixd): one deadline per
// call covering connect, headers and body; a bounded body; every call through the backend's pinned
// dispatcher (wallet-network.ts); and transport failures mapped to WalletError kinds ("timeout" when
// the deadline passed, "unreachable" for refused connections, blocked addresses, DNS and TLS
// failures). Status codes are left to each backend: their error dialects differ. Our error messages
// never carry a response body: a wallet URL may point anywhere, and its answer is not ours to show.
import { request, type Dispatcher } from "undici";
import { WalletError } from "./types.ts";
import { blockedTarget, blockedWalletMessage } from "./wallet-network.ts";

/** Wallet answers are small JSON documents; anything larger is not one of them. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** TLS verification failures, reported with a hint about tlsCertPem rather than as a bare code. */
const TLS_ERROR_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** How one backend instance talks HTTP: where, with which credentials, and how patiently. */
export type WalletHttpOptions = {
  /** Human name used in error messages ("LND", "LNbits", "phoenixd"). */
  backend: string;
  /** Base URL, possibly with a path prefix (LNbits behind /lnbits); request paths are appended to it. */
  baseUrl: string;
  timeoutMs: number;
  /** Sent on every request (credentials). */
  headers: Record<string, string>;
  /** The backend's pinned dispatcher (walletDispatcher): the only way a wallet call leaves the process. */
  dispatcher: Dispatcher;
};

/** A received answer: status and body, with the body parsed as JSON when it is JSON. */
export type WalletHttpResponse = {
  status: number;
  text: string;
  /** The parsed body, or undefined when the body is not JSON. */
  json: unknown;
};

/** A request body: JSON, or application/x-www-form-urlencoded fields (phoenixd). */
export type WalletHttpBody = { json: unknown } | { form: Record<string, string> };

/** The code of a Node/undici network error, looking through `cause` chains. */
function errorCode(err: unknown): string | undefined {
  for (let current = err, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && !code.startsWith("UND_ERR_ABORTED")) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Joins a base URL that may carry a path prefix with an absolute request path. */
export function walletUrl(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${prefix}${path}`, base);
}

/** One backend's HTTP client: every call either answers within timeoutMs or throws a WalletError. */
export class WalletHttpClient {
  constructor(private readonly options: WalletHttpOptions) {}

  /** Sends one request and returns the status and body, whatever the status. */
  async send(method: "GET" | "POST", path: string, body?: WalletHttpBody): Promise<WalletHttpResponse> {
    const { backend, timeoutMs } = this.options;
    const url = walletUrl(this.options.baseUrl, path);
    const headers: Record<string, string> = { accept: "application/json", ...this.options.headers };
    let payload: string | undefined;
    if (body && "json" in body) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body.json);
    } else if (body) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      payload = new URLSearchParams(body.form).toString();
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const response = await request(url, {
        method,
        headers,
        body: payload,
        signal: controller.signal,
        dispatcher: this.options.dispatcher,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESPONSE_BYTES) {
          controller.abort();
          throw new WalletError("invalid_response", `${backend} answered ${method} ${path} with more than ${MAX_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.statusCode, text, json };
    } catch (err) {
      if (err instanceof WalletError) throw err;
      if (timedOut) throw new WalletError("timeout", `${backend} did not answer ${method} ${path} within ${timeoutMs} ms`);
      const blocked = blockedTarget(err);
      if (blocked) throw new WalletError("unreachable", blockedWalletMessage(backend, url.host, blocked));
      const code = errorCode(err);
      if (code && TLS_ERROR_CODES.has(code)) {
        throw new WalletError(
          "unreachable",
          `${backend} at ${url.host} presented a TLS certificate we do not trust (${code}); for a self-signed node certificate, provide it as tlsCertPem`,
        );
      }
      throw new WalletError("unreachable", `${backend} is unreachable at ${url.host}: ${code ?? (err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The WalletError for a non-success status every REST backend shares: 401/403 are bad credentials,
 * 404 and gateway errors mean the URL does not lead to a working wallet, 429 and other 4xx/5xx are
 * refusals. Only the status is named: the body stays with the wallet (it could be any internal page).
 */
export function walletHttpError(backend: string, what: string, status: number): WalletError {
  if (status === 401 || status === 403) return new WalletError("unauthorized", `${backend} refused the credentials for ${what} (HTTP ${status})`);
  if (status === 404) return new WalletError("unreachable", `${backend} has no ${what} endpoint at this URL (HTTP 404); check the URL`);
  if (status === 502 || status === 503 || status === 504) return new WalletError("unreachable", `${backend} is unavailable behind its proxy (HTTP ${status})`);
  return new WalletError("rejected", `${backend} refused ${what} (HTTP ${status})`);
}
