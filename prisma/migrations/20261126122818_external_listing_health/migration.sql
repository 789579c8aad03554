-- AlterTable
ALTER TABLE "ExternalListing" ADD COLUMN     "healthySince" TIMESTAMPTZ(3),
ADD COLUMN     "lastHealthyAt" TIMESTAMPTZ(3),
ADD COLUMN     "lastProbeAt" TIMESTAMPTZ(3),
ADD COLUMN     "searchVector" tsvector,
ADD COLUMN     "suspendedAt" TIMESTAMPTZ(3),
ADD COLUMN     "unhealthySince" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "ExternalListingHealthDay" (
    "listingId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "ok" INTEGER NOT NULL DEFAULT 0,
    "okLatencySum" BIGINT NOT NULL DEFAULT 0,
    "okLatencyCount" INTEGER NOT NULL DEFAULT 0,
    "lastOk" BOOLEAN NOT NULL,
    "lastCheckedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ExternalListingHealthDay_pkey" PRIMARY KEY ("listingId","day")
);

-- CreateIndex
CREATE INDEX "ExternalListing_searchVector_idx" ON "ExternalListing" USING GIN ("searchVector");

-- AddForeignKey
ALTER TABLE "ExternalListingHealthDay" ADD CONSTRAINT "ExternalListingHealthDay_listingId_fkey" FOREIGN KEY ("listingId") REFERENCES "ExternalListing"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written below (Prisma does not model functions, triggers or expression indexes, so the
-- schema diff ignores them). External listings join the directory's one query layer
-- (lib/directory/directory-rows.ts): the same search document, tag counts and orderings as listed
-- tenants, with "approved" as their listing rule.

-- The weighted search document of a listing, as directory_search_document is for a tenant: name
-- and slug (A), tags (B), description (C), the paths and titles of its declared endpoints (D).
CREATE OR REPLACE FUNCTION "external_listing_search_document"(p_name TEXT, p_slug TEXT, p_tags TEXT[], p_description TEXT, p_endpoints JSONB)
RETURNS tsvector LANGUAGE sql STABLE AS $$
  SELECT
    setweight(to_tsvector('english', coalesce(p_name, '')) || to_tsvector('simple', coalesce(p_name, '') || ' ' || coalesce(p_slug, '')), 'A')
    || setweight(to_tsvector('english', coalesce(array_to_string(p_tags, ' '), '')) || to_tsvector('simple', coalesce(array_to_string(p_tags, ' '), '')), 'B')
    || setweight(to_tsvector('english', coalesce(p_description, '')) || to_tsvector('simple', coalesce(p_description, '')), 'C')
    || setweight(to_tsvector('simple', coalesce((
         SELECT string_agg(regexp_replace(coalesce(e ->> 'path', ''), '[^[:alnum:]]+', ' ', 'g') || ' ' || coalesce(e ->> 'title', ''), ' ')
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_endpoints) = 'array' THEN p_endpoints ELSE '[]'::jsonb END) AS e
         WHERE jsonb_typeof(e) = 'object'
       ), '')), 'D')
$$;

CREATE OR REPLACE FUNCTION "external_listing_search_vector_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."searchVector" := "external_listing_search_document"(NEW."name", NEW."slug", NEW."tags", NEW."description", NEW."endpoints");
  RETURN NEW;
END $$;

CREATE TRIGGER "ExternalListing_search_vector_insert" BEFORE INSERT ON "ExternalListing"
  FOR EACH ROW EXECUTE FUNCTION "external_listing_search_vector_refresh"();
CREATE TRIGGER "ExternalListing_search_vector_update" BEFORE UPDATE OF "name", "slug", "tags", "description", "endpoints" ON "ExternalListing"
  FOR EACH ROW EXECUTE FUNCTION "external_listing_search_vector_refresh"();

-- Fuzzy name match, tag filter and the name / newest orderings of approved listings.
CREATE INDEX "ExternalListing_name_trgm_idx" ON "ExternalListing" USING GIN ("name" gin_trgm_ops);
CREATE INDEX "ExternalListing_directory_tags_idx" ON "ExternalListing" USING gin ("directory_tags"("tags")) WHERE "status" = 'approved';
CREATE INDEX "ExternalListing_directory_name_idx" ON "ExternalListing" (lower("name"), "id") WHERE "status" = 'approved';
CREATE INDEX "ExternalListing_directory_recent_idx" ON "ExternalListing" ("createdAt" DESC, "id" DESC) WHERE "status" = 'approved';

-- Tag counts (DirectoryTagCount, the categories view) count approved listings beside listed
-- tenants: the same statement as tenant_tag_counts_refresh, with status = 'approved' as the rule.
CREATE OR REPLACE FUNCTION "external_listing_tag_counts_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_tags TEXT[] := ARRAY[]::text[];
  new_tags TEXT[] := ARRAY[]::text[];
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."status" = 'approved' THEN old_tags := "directory_tags"(OLD."tags"); END IF;
  IF TG_OP <> 'DELETE' AND NEW."status" = 'approved' THEN new_tags := "directory_tags"(NEW."tags"); END IF;
  IF old_tags = new_tags THEN RETURN NULL; END IF;
  INSERT INTO "DirectoryTagCount" AS c ("tag", "count")
  SELECT tg, sum(delta)::int FROM (
    SELECT tg, -1 AS delta FROM unnest(old_tags) AS tg
    UNION ALL
    SELECT tg, 1 AS delta FROM unnest(new_tags) AS tg
  ) changes
  GROUP BY tg HAVING sum(delta) <> 0
  ORDER BY tg
  ON CONFLICT ("tag") DO UPDATE SET "count" = c."count" + EXCLUDED."count";
  RETURN NULL;
END $$;

CREATE TRIGGER "ExternalListing_tag_counts_insert_delete" AFTER INSERT OR DELETE ON "ExternalListing"
  FOR EACH ROW EXECUTE FUNCTION "external_listing_tag_counts_refresh"();
CREATE TRIGGER "ExternalListing_tag_counts_update" AFTER UPDATE ON "ExternalListing"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."tags" IS DISTINCT FROM NEW."tags")
  EXECUTE FUNCTION "external_listing_tag_counts_refresh"();

-- Existing rows.
UPDATE "ExternalListing" l SET "searchVector" = "external_listing_search_document"(l."name", l."slug", l."tags", l."description", l."endpoints");
INSERT INTO "DirectoryTagCount" AS c ("tag", "count")
SELECT tg, count(*)::int FROM "ExternalListing" l CROSS JOIN LATERAL unnest("directory_tags"(l."tags")) AS tg
WHERE l."status" = 'approved' GROUP BY tg
ON CONFLICT ("tag") DO UPDATE SET "count" = c."count" + EXCLUDED."count";
