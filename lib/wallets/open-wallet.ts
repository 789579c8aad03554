// Turns a stored wallet row into a live WalletBackend: decrypt, validate, build. Used by the
// gateway (invoices), the worker (settlement polling, capacity) and the connect flow.
import { openSecret } from "@/lib/crypto/secret-box.ts";
import { walletCredentialsSchema, type WalletCredentials } from "@/lib/lightning/credentials.ts";
import { walletBackendFor, walletBackendOptionsFor, type DevLightningNode } from "@/lib/lightning/index.ts";
import { WalletError } from "@/lib/lightning/types.ts";
import type { CapableWalletBackend } from "@/lib/lightning/wallet-capabilities.ts";
import type { TargetPolicy } from "@/lib/lightning/wallet-network.ts";

export type StoredWallet = { type: string; credentialsEnc: string };

/** Decrypts and validates stored credentials (dev wallets store `{}` and get their type from the row). */
export function readWalletCredentials(appSecret: string, wallet: StoredWallet): WalletCredentials {
  let stored: unknown;
  try {
    stored = JSON.parse(openSecret(appSecret, wallet.credentialsEnc));
  } catch {
    throw new WalletError("unauthorized", "The stored wallet credentials cannot be decrypted (was APP_SECRET changed?)");
  }
  const parsed = walletCredentialsSchema.safeParse({ type: wallet.type, ...(stored as object) });
  if (!parsed.success) throw new WalletError("invalid_response", "The stored wallet credentials are no longer valid; reconnect the wallet");
  return parsed.data;
}

/** What opening a stored wallet needs; `targetPolicy` is walletTargetPolicy(config) outside tests. */
export type OpenWalletOptions = {
  appSecret: string;
  wallet: StoredWallet;
  devNode: DevLightningNode | null;
  /** The address rules every connection to the wallet passes (WALLET_ALLOWED_TARGETS). */
  targetPolicy: TargetPolicy;
  timeoutMs?: number;
};

/** Builds the backend for a stored wallet. Callers own it and call `close?.()` when done. */
export function openWalletBackend(options: OpenWalletOptions): CapableWalletBackend {
  const credentials = readWalletCredentials(options.appSecret, options.wallet);
  return walletBackendFor(walletBackendOptionsFor(credentials, { devNode: options.devNode, targetPolicy: options.targetPolicy, timeoutMs: options.timeoutMs }));
}
