// Optional abilities some wallet backends have beyond the WalletBackend contract (lib/lightning/types.ts,
// which stays minimal because the gateway owns it). Callers feature-test them: `backend.getCapacity?.()`.
import type { WalletBackend } from "./types.ts";

/** How long a wallet call may take before it fails with WalletError("timeout"), unless configured. */
export const DEFAULT_WALLET_TIMEOUT_MS = 10_000;

/** A node's channel liquidity, as the worker's capacity check needs it (node.capacity_changed). */
export type WalletCapacity = {
  activeChannels: number;
  totalChannels: number;
  /** What the node can still receive now: the remote balance of its active channels. */
  receivingCapacitySat: number;
  /** Sum of the capacity of all channels, active or not. */
  totalCapacitySat: number;
  /** Distinct peers with an active channel, when the backend can tell. */
  peersOnline?: number;
};

/** Called with the payment hash (lowercase hex) of an invoice the wallet just saw paid. */
export type PaymentReceivedListener = (paymentHash: string) => void;

/**
 * Everything a backend may offer beyond WalletBackend; each backend implements the subset it can
 * (`WalletBackend & Pick<WalletCapabilities, ...>`), so absent members mean "not supported".
 */
export interface WalletCapabilities {
  /** Channel liquidity of the node (LND: GET /v1/channels). */
  getCapacity(): Promise<WalletCapacity>;
  /**
   * Push notification of settled invoices (NWC payment_received, phoenixd websocket). Best effort:
   * events sent while disconnected are lost, so polling lookupInvoice stays the source of truth.
   * Returns the unsubscribe function.
   */
  onPaymentReceived(listener: PaymentReceivedListener): () => void;
  /** Releases connections and timers held by the backend; the backend is unusable afterwards. */
  close(): Promise<void>;
}

/** What walletBackendFor returns: the contract plus whichever optional abilities the backend has. */
export type CapableWalletBackend = WalletBackend & Partial<WalletCapabilities>;

/**
 * The listener set behind onPaymentReceived: one throwing listener must not starve the others or
 * break the connection that delivered the event.
 */
export class PaymentReceivedListeners {
  private readonly listeners = new Set<PaymentReceivedListener>();

  /** Adds a listener and returns its idempotent unsubscribe function. */
  add(listener: PaymentReceivedListener): () => void {
    // Wrapped so the same function added twice gets two independent subscriptions.
    const entry: PaymentReceivedListener = (hash) => listener(hash);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Number of current listeners; backends keep a push connection open only while it is above zero. */
  get size(): number {
    return this.listeners.size;
  }

  /** Calls every listener with the payment hash, isolating listener failures. */
  emit(paymentHash: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(paymentHash.toLowerCase());
      } catch {
        // A listener's own bug is not the wallet's problem; the others still get the event.
      }
    }
  }

  /** Drops every listener (backend close). */
  clear(): void {
    this.listeners.clear();
  }
}
