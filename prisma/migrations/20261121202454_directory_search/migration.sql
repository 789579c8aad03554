-- Directory full-text search (lib/directory/search-query.ts). pg_trgm ships with PostgreSQL's
-- contrib and with PGlite (lib/db/client.ts loads it); it is a trusted extension, so a database
-- owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "searchVector" tsvector;

-- CreateIndex
CREATE INDEX "Tenant_searchVector_idx" ON "Tenant" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "Tenant_name_idx" ON "Tenant" USING GIN ("name" gin_trgm_ops);

-- Hand-written below (Prisma does not model functions or triggers, so the schema diff ignores them).

-- The weighted search document of one tenant: name and slug (A), tags (B), description (C), the
-- paths and titles of its active endpoints (D). Every part is indexed twice: with the english
-- configuration (stems: "routes" finds "route") and with simple (whole words, so a prefix query
-- such as "routin:*" still finds "routing"). Paths are split on punctuation: /v1/candles -> v1 candles.
CREATE OR REPLACE FUNCTION "directory_search_document"(p_id TEXT, p_name TEXT, p_slug TEXT, p_tags TEXT[], p_description TEXT)
RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT
    setweight(to_tsvector('english', coalesce(p_name, '')) || to_tsvector('simple', coalesce(p_name, '') || ' ' || coalesce(p_slug, '')), 'A')
    || setweight(to_tsvector('english', coalesce(array_to_string(p_tags, ' '), '')) || to_tsvector('simple', coalesce(array_to_string(p_tags, ' '), '')), 'B')
    || setweight(to_tsvector('english', coalesce(p_description, '')) || to_tsvector('simple', coalesce(p_description, '')), 'C')
    || setweight(to_tsvector('simple', coalesce((
         SELECT string_agg(regexp_replace(e."path", '[^[:alnum:]]+', ' ', 'g') || ' ' || e."title", ' ')
         FROM "Endpoint" e WHERE e."tenantId" = p_id AND e."isActive" = true
       ), '')), 'D')
$$;

-- A tenant's own text changed (or it was created): recompute its document before the write.
CREATE OR REPLACE FUNCTION "tenant_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."searchVector" := "directory_search_document"(NEW."id", NEW."name", NEW."slug", NEW."tags", NEW."description");
  RETURN NEW;
END $$;

CREATE TRIGGER "Tenant_search_vector_insert" BEFORE INSERT ON "Tenant"
  FOR EACH ROW EXECUTE FUNCTION "tenant_search_vector_refresh"();
CREATE TRIGGER "Tenant_search_vector_update" BEFORE UPDATE OF "name", "slug", "tags", "description" ON "Tenant"
  FOR EACH ROW EXECUTE FUNCTION "tenant_search_vector_refresh"();

-- Endpoints changed: recompute the documents of the tenants they belong to, once per statement
-- (a bulk insert of many endpoints refreshes each tenant once).
CREATE OR REPLACE FUNCTION "endpoint_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Tenant" t
  SET "searchVector" = "directory_search_document"(t."id", t."name", t."slug", t."tags", t."description")
  WHERE t."id" IN (SELECT "tenantId" FROM changed_endpoints);
  RETURN NULL;
END $$;

CREATE TRIGGER "Endpoint_search_vector_insert" AFTER INSERT ON "Endpoint"
  REFERENCING NEW TABLE AS changed_endpoints
  FOR EACH STATEMENT EXECUTE FUNCTION "endpoint_search_vector_refresh"();
CREATE TRIGGER "Endpoint_search_vector_update" AFTER UPDATE ON "Endpoint"
  REFERENCING NEW TABLE AS changed_endpoints
  FOR EACH STATEMENT EXECUTE FUNCTION "endpoint_search_vector_refresh"();
CREATE TRIGGER "Endpoint_search_vector_delete" AFTER DELETE ON "Endpoint"
  REFERENCING OLD TABLE AS changed_endpoints
  FOR EACH STATEMENT EXECUTE FUNCTION "endpoint_search_vector_refresh"();

-- Existing tenants get their document now.
UPDATE "Tenant" t SET "searchVector" = "directory_search_document"(t."id", t."name", t."slug", t."tags", t."description");
