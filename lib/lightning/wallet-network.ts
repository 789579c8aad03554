// How wallet backends reach the network. A provider chooses the addresses (LND REST URL, LNbits or
// phoenixd URL, NWC relay), so every connection goes through the SSRF rules of webhooks and origins
// (lib/origin/ssrf.ts): HTTP calls through a pinned undici dispatcher, WebSockets (NWC relays,
// phoenixd's /websocket) through the same connect-time check; loopback, private and reserved
// addresses are refused unless WALLET_ALLOWED_TARGETS names them (a self-hosted node on the LAN).
// WebSocket messages are bounded like HTTP bodies (wallet-http.ts): wallets speak small JSON.
import type { Agent } from "undici";
import WebSocket from "ws";
import { BlockedTargetError, createPinnedDispatcher, pinnedSocketConnector, systemResolver, type HostResolver, type TargetPolicy } from "@/lib/origin/ssrf.ts";

export type { TargetPolicy } from "@/lib/origin/ssrf.ts";

/** Largest WebSocket message a wallet or relay may send; larger ones close the connection (1009). */
export const MAX_WALLET_MESSAGE_BYTES = 1024 * 1024;

/** Connections one backend keeps to its wallet: calls are short, a few suffice under load. */
const CONNECTIONS_PER_WALLET = 4;

/** The wallet policy of a running process: the system resolver and WALLET_ALLOWED_TARGETS. */
export function walletTargetPolicy(config: { walletAllowedTargets: readonly string[] }, resolver: HostResolver = systemResolver): TargetPolicy {
  return { resolver, allowedTargets: config.walletAllowedTargets };
}

/**
 * The HTTP dispatcher of one backend instance (the backend's close() closes it): pinned to the
 * addresses the policy allows, trusting only `ca` when given (a node's self-signed tls.cert).
 */
export function walletDispatcher(policy: TargetPolicy, options: { ca?: string; connectTimeoutMs: number }): Agent {
  return createPinnedDispatcher({
    ...policy,
    ...(options.ca ? { ca: options.ca } : {}),
    connectTimeoutMs: options.connectTimeoutMs,
    connectionsPerOrigin: CONNECTIONS_PER_WALLET,
    keepAliveTimeoutMs: 30_000,
  });
}

/** Opens a WebSocket to a wallet address through the connect-time address check, with bounded messages. */
export function openWalletWebSocket(url: string, policy: TargetPolicy, options: WebSocket.ClientOptions = {}): WebSocket {
  const connector = pinnedSocketConnector(policy, { tls: new URL(url).protocol === "wss:" });
  return new WebSocket(url, {
    ...options,
    maxPayload: MAX_WALLET_MESSAGE_BYTES,
    // ws hands these options to node:http, which calls createConnection(options, callback).
    createConnection: connector as unknown as WebSocket.ClientOptions["createConnection"],
  });
}

/** The address-rule refusal behind a connection error (looking through `cause`), or null. */
export function blockedTarget(err: unknown): BlockedTargetError | null {
  for (let current = err, depth = 0; current && depth < 5; depth++) {
    if (current instanceof BlockedTargetError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** Our words for a refused wallet address: what the address is, and that the operator can allow it. */
export function blockedWalletMessage(backend: string, host: string, blocked: BlockedTargetError): string {
  return `${backend} at ${host} was not contacted: ${blocked.message}; wallets must be on public addresses unless the operator allows the range (WALLET_ALLOWED_TARGETS)`;
}
