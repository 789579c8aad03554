// Entry point of lib/lightning: the WalletBackend contract, the dev node, and the one factory that
// turns a provider's wallet configuration into a WalletBackend (so callers never switch on types).
import { DevLightningNode } from "./dev-node.ts";
import { WalletError, type WalletBackend } from "./types.ts";

export {
  WalletError,
  type CreateInvoiceRequest,
  type CreatedInvoice,
  type InvoiceLookup,
  type InvoiceState,
  type WalletBackend,
} from "./types.ts";
export {
  DevLightningNode,
  DevPaymentError,
  type DevNodeOptions,
  type DevPayment,
  type DevPaymentErrorCode,
} from "./dev-node.ts";

/**
 * How to reach one receiving wallet, discriminated by `type`; each real backend (LND REST, NWC,
 * LNbits, phoenixd) will add its own member carrying its decrypted credentials.
 */
export type WalletBackendOptions = {
  type: "dev";
  /** The process's dev node, or null when LIGHTNING_DEV_NODE is off. */
  devNode: DevLightningNode | null;
};

/**
 * Returns the WalletBackend for a wallet configuration. Throws WalletError("unreachable") when the
 * configured wallet cannot be used at all, which the gateway answers with 503 rather than 402.
 */
export function walletBackendFor(options: WalletBackendOptions): WalletBackend {
  switch (options.type) {
    case "dev":
      if (!options.devNode) {
        throw new WalletError(
          "unreachable",
          "The dev Lightning node is off (LIGHTNING_DEV_NODE=false): configure a real wallet for this provider",
        );
      }
      return options.devNode.wallet();
    default: {
      const unsupported: never = options.type;
      throw new WalletError("unreachable", `Unsupported wallet type: ${String(unsupported)}`);
    }
  }
}
