// TanStack Query keys of the webhooks section, apart from the components that share them, so the
// panel and its cards import each other one way only.

/** The query key of a workspace's subscription list (shared with the cards' optimistic updates). */
export const webhooksKey = (tenantId: string) => ["webhooks", tenantId] as const;
