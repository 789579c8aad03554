-- Hand-written (functions are outside Prisma's schema diff).
--
-- Two transactions inserting endpoints of one tenant each hold a FOR KEY SHARE lock on the tenant
-- (the foreign-key check) when the endpoint trigger recomputes the listing; taking FOR UPDATE there
-- made each wait for the other's key-share lock: a deadlock on PostgreSQL. The recomputation only
-- changes non-key columns, so FOR NO KEY UPDATE is the lock it needs, and it does not conflict with
-- key-share locks: concurrent writers now queue on the tenant row instead of deadlocking.
CREATE OR REPLACE FUNCTION "tenants_directory_listed_recompute"(p_ids TEXT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "Tenant" t WHERE t."id" = ANY (p_ids) ORDER BY t."id" FOR NO KEY UPDATE;
  UPDATE "Tenant" t SET "directoryListed" = "tenant_directory_listed"(t."id", t."status", t."listed")
  WHERE t."id" = ANY (p_ids) AND t."directoryListed" IS DISTINCT FROM "tenant_directory_listed"(t."id", t."status", t."listed");
END $$;
