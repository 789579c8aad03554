// The L402 client SDK (docs/sdk.md): createL402Client and its wallet adapters. Runs in Node 20+
// and browsers: no Node built-ins, no server modules.
export { createL402Client, providerScope, retryAfterMs, type L402Client, type L402ClientEvent, type L402ClientOptions, type L402Payment, type L402RequestInit, type L402RequestOptions, type PricingModelName } from "./l402-client.ts";
export {
  memoryCredentialStore,
  webStorageCredentialStore,
  type L402CredentialStore,
  type L402StoredCredit,
  type L402StoredSession,
  type WebStorageCredentialStoreOptions,
  type WebStorageLike,
} from "./credential-store.ts";
export { L402Error, type L402ErrorCode } from "./errors.ts";
export { L402EventStream, DEFAULT_STREAM_MAX_EVENTS, DEFAULT_STREAM_MAX_MS, type EventStreamWindow, type StreamEndReason, type StreamEvent } from "./event-stream.ts";
export { decodeBolt11Amount, type Bolt11Amount } from "./bolt11-amount.ts";
export type { L402Wallet, WalletPayment, WalletPayRequest } from "./wallet.ts";
export * from "./wallets/index.ts";
