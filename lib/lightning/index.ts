// Entry point of lib/lightning: the WalletBackend contract, the dev node, the real backends (LND REST,
// NWC, LNbits, phoenixd), provider credentials, and the one factory that turns a wallet configuration
// into a WalletBackend (so callers never switch on types).
import { DevLightningNode } from "./dev-node.ts";
import type { LnbitsCredentials, LndCredentials, NwcCredentials, PhoenixdCredentials, WalletCredentials } from "./credentials.ts";
import { LnbitsBackend } from "./lnbits.ts";
import { LndRestBackend } from "./lnd-rest.ts";
import { NwcBackend } from "./nwc.ts";
import { PhoenixdBackend } from "./phoenixd.ts";
import { WalletError } from "./types.ts";
import type { CapableWalletBackend } from "./wallet-capabilities.ts";
import type { TargetPolicy } from "./wallet-network.ts";

export { WalletError, type CreateInvoiceRequest, type CreatedInvoice, type InvoiceLookup, type InvoiceState, type WalletBackend } from "./types.ts";
export { DevLightningNode, DevPaymentError, type DevNodeOptions, type DevPayment, type DevPaymentErrorCode } from "./dev-node.ts";
export { MAX_WALLET_MESSAGE_BYTES, walletTargetPolicy, type TargetPolicy } from "./wallet-network.ts";
export {
  DEFAULT_WALLET_TIMEOUT_MS,
  type CapableWalletBackend,
  type PaymentReceivedListener,
  type WalletCapabilities,
  type WalletCapacity,
} from "./wallet-capabilities.ts";
export {
  describeWallet,
  isLoopbackHost,
  parseNwcConnectionUri,
  walletCredentialsSchema,
  devCredentialsSchema,
  lndCredentialsSchema,
  nwcCredentialsSchema,
  lnbitsCredentialsSchema,
  phoenixdCredentialsSchema,
  type DevCredentials,
  type LndCredentials,
  type NwcConnection,
  type NwcCredentials,
  type LnbitsCredentials,
  type PhoenixdCredentials,
  type WalletCredentials,
  type WalletDescription,
} from "./credentials.ts";
export { LndRestBackend, type LndRestBackendOptions } from "./lnd-rest.ts";
export { NwcBackend, Nip47Error, NIP47_ERROR_KINDS, chooseNwcEncryption, type NwcBackendOptions, type NwcEncryption } from "./nwc.ts";
export { LnbitsBackend, type LnbitsBackendOptions } from "./lnbits.ts";
export { PhoenixdBackend, PHOENIXD_MAX_DESCRIPTION_LENGTH, type PhoenixdBackendOptions } from "./phoenixd.ts";

/**
 * How to reach one receiving wallet, discriminated by `type`: the dev node, or a real backend with its
 * validated (decrypted) credentials, the address rules every connection to it passes
 * (walletTargetPolicy), and an optional per-call timeout (DEFAULT_WALLET_TIMEOUT_MS).
 */
export type WalletBackendOptions =
  | {
      type: "dev";
      /** The process's dev node, or null when LIGHTNING_DEV_NODE is off. */
      devNode: DevLightningNode | null;
    }
  | { type: "lnd"; credentials: LndCredentials; targetPolicy: TargetPolicy; timeoutMs?: number }
  | { type: "nwc"; credentials: NwcCredentials; targetPolicy: TargetPolicy; timeoutMs?: number }
  | { type: "lnbits"; credentials: LnbitsCredentials; targetPolicy: TargetPolicy; timeoutMs?: number }
  | { type: "phoenixd"; credentials: PhoenixdCredentials; targetPolicy: TargetPolicy; timeoutMs?: number };

/**
 * Returns the WalletBackend for a wallet configuration. Throws WalletError("unreachable") when the
 * configured wallet cannot be used at all, which the gateway answers with 503 rather than 402.
 * Remote backends hold connections (their pinned HTTP agent, NWC's relay socket, phoenixd's
 * websocket) and expose `close()`; callers that build one per use should call it.
 */
export function walletBackendFor(options: WalletBackendOptions): CapableWalletBackend {
  switch (options.type) {
    case "dev":
      if (!options.devNode) {
        throw new WalletError("unreachable", "The dev Lightning node is off (LIGHTNING_DEV_NODE=false): configure a real wallet for this provider");
      }
      return options.devNode.wallet();
    case "lnd":
      return new LndRestBackend(options);
    case "nwc":
      return new NwcBackend(options);
    case "lnbits":
      return new LnbitsBackend(options);
    case "phoenixd":
      return new PhoenixdBackend(options);
    default: {
      const unsupported: never = options;
      throw new WalletError("unreachable", `Unsupported wallet type: ${String((unsupported as { type?: unknown }).type)}`);
    }
  }
}

/**
 * Builds the factory options for stored credentials (after openSecret + walletCredentialsSchema.parse),
 * so the code that loads a provider's wallet does not switch on types either.
 */
export function walletBackendOptionsFor(
  credentials: WalletCredentials,
  context: { devNode: DevLightningNode | null; targetPolicy: TargetPolicy; timeoutMs?: number },
): WalletBackendOptions {
  const { timeoutMs, targetPolicy } = context;
  switch (credentials.type) {
    case "dev":
      return { type: "dev", devNode: context.devNode };
    case "lnd":
      return { type: "lnd", credentials, targetPolicy, timeoutMs };
    case "nwc":
      return { type: "nwc", credentials, targetPolicy, timeoutMs };
    case "lnbits":
      return { type: "lnbits", credentials, targetPolicy, timeoutMs };
    case "phoenixd":
      return { type: "phoenixd", credentials, targetPolicy, timeoutMs };
  }
}
