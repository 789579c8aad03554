// `@l402-hub/sdk` and `@l402-hub/sdk/client`: the L402 client (docs/sdk.md), createL402Client and its
// wallet adapters. Runs in Node 20+ and browsers: no Node built-ins, no server modules.
export {
  createL402Client,
  providerScope,
  retryAfterMs,
  type L402Client,
  type L402ClientEvent,
  type L402ClientOptions,
  type L402Payment,
  type L402RequestInit,
  type L402RequestOptions,
  type PricingModelName,
} from "./client/l402-client.ts";
export {
  memoryCredentialStore,
  webStorageCredentialStore,
  type L402CredentialStore,
  type L402StoredCredit,
  type L402StoredSession,
  type WebStorageCredentialStoreOptions,
  type WebStorageLike,
} from "./client/credential-store.ts";
export { L402Error, type L402ErrorCode } from "./client/errors.ts";
export {
  L402EventStream,
  DEFAULT_STREAM_MAX_EVENTS,
  DEFAULT_STREAM_MAX_MS,
  type EventStreamWindow,
  type StreamEndReason,
  type StreamEvent,
} from "./client/event-stream.ts";
export { decodeBolt11Amount, type Bolt11Amount } from "./client/bolt11-amount.ts";
export { paymentHashOf, type L402Wallet, type WalletPayment, type WalletPayRequest } from "./client/wallet.ts";
export * from "./client/wallets/index.ts";
