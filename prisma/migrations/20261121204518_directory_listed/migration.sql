-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "directoryListed" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Tenant_directoryListed_createdAt_idx" ON "Tenant"("directoryListed", "createdAt");

-- Hand-written below (Prisma does not model functions or triggers, so the schema diff ignores them).

-- The listing rule (lib/directory/listing-rule.ts): active, not opted out, can be paid (a wallet),
-- has something to call (an active endpoint).
CREATE OR REPLACE FUNCTION "tenant_directory_listed"(p_id TEXT, p_status "TenantStatus", p_listed BOOLEAN)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT p_status = 'active' AND p_listed
    AND EXISTS (SELECT 1 FROM "Wallet" w WHERE w."tenantId" = p_id)
    AND EXISTS (SELECT 1 FROM "Endpoint" e WHERE e."tenantId" = p_id AND e."isActive" = true)
$$;

-- Status or opt-out changed (or the tenant was created): decide before the write.
CREATE OR REPLACE FUNCTION "tenant_directory_listed_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."directoryListed" := "tenant_directory_listed"(NEW."id", NEW."status", NEW."listed");
  RETURN NEW;
END $$;

CREATE TRIGGER "Tenant_directory_listed_insert" BEFORE INSERT ON "Tenant"
  FOR EACH ROW EXECUTE FUNCTION "tenant_directory_listed_refresh"();
CREATE TRIGGER "Tenant_directory_listed_update" BEFORE UPDATE OF "status", "listed" ON "Tenant"
  FOR EACH ROW EXECUTE FUNCTION "tenant_directory_listed_refresh"();

-- Recomputes the listing of the given tenants. The row lock comes first, in its own statement, so
-- the recomputation runs on a snapshot taken after any concurrent change to the same tenant has
-- committed (READ COMMITTED takes a fresh snapshot per statement of a volatile function).
CREATE OR REPLACE FUNCTION "tenants_directory_listed_recompute"(p_ids TEXT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "Tenant" t WHERE t."id" = ANY (p_ids) ORDER BY t."id" FOR UPDATE;
  UPDATE "Tenant" t SET "directoryListed" = "tenant_directory_listed"(t."id", t."status", t."listed")
  WHERE t."id" = ANY (p_ids) AND t."directoryListed" IS DISTINCT FROM "tenant_directory_listed"(t."id", t."status", t."listed");
END $$;

-- A wallet was connected or removed.
CREATE OR REPLACE FUNCTION "wallet_directory_listed_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "tenants_directory_listed_recompute"(ARRAY[COALESCE(NEW."tenantId", OLD."tenantId")]);
  RETURN NULL;
END $$;

CREATE TRIGGER "Wallet_directory_listed_insert_delete" AFTER INSERT OR DELETE ON "Wallet"
  FOR EACH ROW EXECUTE FUNCTION "wallet_directory_listed_refresh"();

-- Endpoints changed: the search document (directory_search migration) and the listing, once per
-- statement for every tenant touched.
CREATE OR REPLACE FUNCTION "endpoint_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "tenants_directory_listed_recompute"(ARRAY(SELECT DISTINCT "tenantId" FROM changed_endpoints));
  UPDATE "Tenant" t
  SET "searchVector" = "directory_search_document"(t."id", t."name", t."slug", t."tags", t."description")
  WHERE t."id" IN (SELECT "tenantId" FROM changed_endpoints);
  RETURN NULL;
END $$;

-- Existing tenants get their listing now.
UPDATE "Tenant" t SET "directoryListed" = "tenant_directory_listed"(t."id", t."status", t."listed");
