-- CreateTable
CREATE TABLE "EndpointHealthDay" (
    "endpointId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "ok" INTEGER NOT NULL DEFAULT 0,
    "okLatencySum" BIGINT NOT NULL DEFAULT 0,
    "okLatencyCount" INTEGER NOT NULL DEFAULT 0,
    "lastOk" BOOLEAN NOT NULL,
    "lastCheckedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EndpointHealthDay_pkey" PRIMARY KEY ("endpointId","day")
);

-- CreateTable
CREATE TABLE "DirectoryTagCount" (
    "tag" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "DirectoryTagCount_pkey" PRIMARY KEY ("tag")
);

-- CreateIndex
CREATE INDEX "EndpointHealthDay_tenantId_day_idx" ON "EndpointHealthDay"("tenantId", "day");

-- AddForeignKey
ALTER TABLE "EndpointHealthDay" ADD CONSTRAINT "EndpointHealthDay_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "Endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written below (Prisma does not model functions, triggers or expression indexes, so the
-- schema diff ignores them).

-- A tenant's directory tags: lowercase, blank ones dropped, each once, sorted. IMMUTABLE so the
-- tag filter can use an expression index; the same normalization the tag counts use.
CREATE OR REPLACE FUNCTION "directory_tags"(p_tags TEXT[]) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(DISTINCT lower(tg) ORDER BY lower(tg)), ARRAY[]::text[])
  FROM unnest(COALESCE(p_tags, ARRAY[]::text[])) AS tg
  WHERE btrim(tg) <> ''
$$;

-- Tag filter (`?tag=`) and name / newest ordering of listed tenants, without scanning them all.
CREATE INDEX "Tenant_directory_tags_idx" ON "Tenant" USING gin ("directory_tags"("tags")) WHERE "directoryListed";
CREATE INDEX "Tenant_directory_name_idx" ON "Tenant" (lower("name"), "id") WHERE "directoryListed";
CREATE INDEX "Tenant_directory_recent_idx" ON "Tenant" ("createdAt" DESC, "id" DESC) WHERE "directoryListed";

-- Tag counts follow every change of a tenant's tags or listing (directoryListed is itself kept by
-- the directory_listed triggers). Rows at zero stay
-- (readers skip them) so a counter row, once there, is only ever updated.
CREATE OR REPLACE FUNCTION "tenant_tag_counts_refresh"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_tags TEXT[] := ARRAY[]::text[];
  new_tags TEXT[] := ARRAY[]::text[];
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."directoryListed" THEN old_tags := "directory_tags"(OLD."tags"); END IF;
  IF TG_OP <> 'DELETE' AND NEW."directoryListed" THEN new_tags := "directory_tags"(NEW."tags"); END IF;
  IF old_tags = new_tags THEN RETURN NULL; END IF;
  -- One statement, tags in order: concurrent changes lock the counter rows in the same order, so
  -- they queue instead of deadlocking.
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

CREATE TRIGGER "Tenant_tag_counts_insert_delete" AFTER INSERT OR DELETE ON "Tenant"
  FOR EACH ROW EXECUTE FUNCTION "tenant_tag_counts_refresh"();
-- Not `UPDATE OF`: a change the BEFORE triggers make (status -> directoryListed) is not in the
-- statement's column list; WHEN sees the final row.
CREATE TRIGGER "Tenant_tag_counts_update" AFTER UPDATE ON "Tenant"
  FOR EACH ROW WHEN (OLD."directoryListed" IS DISTINCT FROM NEW."directoryListed" OR OLD."tags" IS DISTINCT FROM NEW."tags")
  EXECUTE FUNCTION "tenant_tag_counts_refresh"();

-- Every health sample lands in its endpoint's day; the day keeps its latest probe's outcome.
CREATE OR REPLACE FUNCTION "health_sample_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  timed BOOLEAN := NEW."ok" AND NEW."latencyMs" IS NOT NULL;
BEGIN
  INSERT INTO "EndpointHealthDay" AS d ("endpointId", "tenantId", "day", "total", "ok", "okLatencySum", "okLatencyCount", "lastOk", "lastCheckedAt")
  VALUES (NEW."endpointId", NEW."tenantId", CAST(NEW."checkedAt" AS date), 1, CASE WHEN NEW."ok" THEN 1 ELSE 0 END,
    CASE WHEN timed THEN NEW."latencyMs" ELSE 0 END, CASE WHEN timed THEN 1 ELSE 0 END, NEW."ok", NEW."checkedAt")
  ON CONFLICT ("endpointId", "day") DO UPDATE SET
    "total" = d."total" + 1,
    "ok" = d."ok" + EXCLUDED."ok",
    "okLatencySum" = d."okLatencySum" + EXCLUDED."okLatencySum",
    "okLatencyCount" = d."okLatencyCount" + EXCLUDED."okLatencyCount",
    "lastOk" = CASE WHEN EXCLUDED."lastCheckedAt" >= d."lastCheckedAt" THEN EXCLUDED."lastOk" ELSE d."lastOk" END,
    "lastCheckedAt" = GREATEST(d."lastCheckedAt", EXCLUDED."lastCheckedAt");
  RETURN NULL;
END $$;

CREATE TRIGGER "HealthSample_rollup" AFTER INSERT ON "HealthSample"
  FOR EACH ROW EXECUTE FUNCTION "health_sample_rollup"();

-- Existing data.
INSERT INTO "DirectoryTagCount" ("tag", "count")
SELECT tg, count(*)::int FROM "Tenant" t CROSS JOIN LATERAL unnest("directory_tags"(t."tags")) AS tg
WHERE t."directoryListed" GROUP BY tg;

INSERT INTO "EndpointHealthDay" ("endpointId", "tenantId", "day", "total", "ok", "okLatencySum", "okLatencyCount", "lastOk", "lastCheckedAt")
SELECT s."endpointId", min(s."tenantId"), CAST(s."checkedAt" AS date), count(*)::int,
  (count(*) FILTER (WHERE s."ok"))::int,
  COALESCE(sum(s."latencyMs") FILTER (WHERE s."ok" AND s."latencyMs" IS NOT NULL), 0),
  (count(*) FILTER (WHERE s."ok" AND s."latencyMs" IS NOT NULL))::int,
  (array_agg(s."ok" ORDER BY s."checkedAt" DESC, s."id" DESC))[1],
  max(s."checkedAt")
FROM "HealthSample" s
GROUP BY s."endpointId", CAST(s."checkedAt" AS date);
