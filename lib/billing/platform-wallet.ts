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
  if (!parsed.success) throw new Error(credentialsProblem(parsed.error.issues[0]));
  return walletBackendFor(walletBackendOptionsFor(parsed.data, { devNode, targetPolicy: walletTargetPolicy(config) }));
}

/**
 * What is wrong with the configured platform wallet's credentials, in one line naming the variable,
 * or null: server.ts refuses to start on it, as on any other configuration problem.
 */
export function platformWalletProblem(config: Pick<Config, "platformWallet">): string | null {
  const configured = config.platformWallet;
  if (!configured) return null;
  const parsed = walletCredentialsSchema.safeParse({ ...configured.credentials, type: configured.type });
  return parsed.success ? null : credentialsProblem(parsed.error.issues[0]);
}

function credentialsProblem(issue: { path: PropertyKey[]; message: string } | undefined): string {
  return `PLATFORM_WALLET_CREDENTIALS: ${issue?.path.map(String).join(".") || "(object)"} ${issue?.message ?? "is invalid"}`;
}
