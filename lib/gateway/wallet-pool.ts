// The gateway's live wallet backends: one per tenant (NWC and phoenixd hold sockets), on the same
// rules as the web app's (lib/wallets/wallet-backend-cache.ts: replaced when the credentials change,
// closed when idle, bounded, closed at shutdown), every connection under the wallet address rules
// (WALLET_ALLOWED_TARGETS). Used only to create invoices: a paid call never asks the wallet.
import type { Config } from "@/lib/config/index.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { WalletError, type WalletBackend } from "@/lib/lightning/types.ts";
import { walletTargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { WalletBackendCache } from "@/lib/wallets/wallet-backend-cache.ts";
import type { GatewayTenant } from "./tenant-cache.ts";

/** Where wallets are opened from: the config (APP_SECRET, WALLET_ALLOWED_TARGETS) and the dev node when it is on. */
export type WalletPoolOptions = {
  config: Config;
  devNode: DevLightningNode | null;
};

/** The tenant's wallet for a challenge's invoice, opened once and reused. */
export class WalletPool {
  private readonly backends: WalletBackendCache;

  constructor(options: WalletPoolOptions) {
    // A provider chooses its wallet's address: every connection to it passes the wallet address rules.
    this.backends = new WalletBackendCache({ appSecret: options.config.appSecret, devNode: options.devNode, targetPolicy: walletTargetPolicy(options.config) });
  }

  /** The tenant's live backend; throws WalletError("unreachable") when it has no wallet (the caller answers 503). */
  walletFor(tenant: GatewayTenant): WalletBackend {
    if (!tenant.wallet) throw new WalletError("unreachable", "No wallet connected");
    return this.backends.backendFor(tenant.id, tenant.wallet);
  }

  /** Closes every backend (shutdown). */
  close(): Promise<void> {
    return this.backends.close();
  }
}
