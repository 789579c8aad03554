// The platform's own wallet, which issues the billing invoices (spec 1.10): configured like a
// tenant's wallet (PLATFORM_WALLET_TYPE + PLATFORM_WALLET_CREDENTIALS), or the dev node on the
// embedded defaults.
import type { Config } from "@/lib/config/index.ts";
import { walletBackendFor, walletBackendOptionsFor, walletTargetPolicy, type DevLightningNode, type WalletBackend } from "@/lib/lightning/index.ts";
import { walletCredentialsSchema } from "@/lib/lightning/credentials.ts";

export type OpenPlatformWalletOptions = { config: Config; devNode: DevLightningNode | null };

/**
 * The live platform wallet, or null when none is configured and the dev node is off (billing then
 * closes cycles but issues no invoice). Throws naming the variable when the credentials are invalid.
 * Callers own the backend and call `close?.()` when done.
 */
export function openPlatformWallet({ config, devNode }: OpenPlatformWalletOptions): (WalletBackend & { close?(): Promise<void> }) | null {
  const configured = config.platformWallet;
  if (!configured) return devNode ? devNode.wallet() : null;
  const parsed = walletCredentialsSchema.safeParse({ ...configured.credentials, type: configured.type });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`PLATFORM_WALLET_CREDENTIALS: ${issue?.path.join(".") || "(object)"} ${issue?.message ?? "is invalid"}`);
  }
  return walletBackendFor(walletBackendOptionsFor(parsed.data, { devNode, targetPolicy: walletTargetPolicy(config) }));
}
