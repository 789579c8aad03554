// The query key of a workspace's webhook subscription list: the panel reads the list under it and
// each card updates it optimistically (its own file, so neither component imports the other).
export const webhooksKey = (tenantId: string) => ["webhooks", tenantId] as const;
