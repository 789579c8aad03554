// Config-change notifications: the platform API publishes one after every change a gateway
// caches (tenant, endpoints, wallet, secrets); every gateway instance subscribes and drops that
// tenant from memory. Delivery is best effort: the gateway's cache TTL is the safety net.
import type { KeyValueStore } from "@/lib/store/types.ts";

/** The pub/sub channel shared by the publisher (platform API) and the subscribers (gateways). */
export const configChangedChannel = "config-changed";

/** The message body on configChangedChannel. */
export type ConfigChangedMessage = { tenantId: string };

export type PublishConfigChangedOptions = {
  store: KeyValueStore;
  tenantId: string;
  /** Where a failed publish is reported; the change itself is already committed. */
  log?: (message: string, err: unknown) => void;
};

/**
 * Tells every gateway that a tenant's configuration changed. Never throws: the database change
 * has been committed, so failing the request would misreport it; gateways refresh on TTL instead.
 */
export async function publishConfigChanged({ store, tenantId, log = console.error }: PublishConfigChangedOptions): Promise<void> {
  const message: ConfigChangedMessage = { tenantId };
  try {
    await store.publish(configChangedChannel, JSON.stringify(message));
  } catch (err) {
    log(`config-changed publish failed for tenant ${tenantId}; gateways will refresh on their cache TTL`, err);
  }
}
