-- Every DateTime column becomes timestamptz(3) (docs/decisions.md, "Time zones"). The columns held
-- UTC wall time (Prisma's convention for timestamp without time zone), so each value is read AS
-- UTC: a bare SET DATA TYPE would read it in the session's time zone and shift every stored
-- instant by that zone's offset. Indexes on these columns are rebuilt by the ALTERs themselves.
-- Edited by hand: the USING clauses and the function at the end.

-- AlterTable
ALTER TABLE "Account" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "ApiKey" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastUsedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastUsedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "revokedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "revokedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "BillingCycle" ALTER COLUMN "periodStart" SET DATA TYPE TIMESTAMPTZ(3) USING "periodStart" AT TIME ZONE 'UTC',
ALTER COLUMN "periodEnd" SET DATA TYPE TIMESTAMPTZ(3) USING "periodEnd" AT TIME ZONE 'UTC',
ALTER COLUMN "dueAt" SET DATA TYPE TIMESTAMPTZ(3) USING "dueAt" AT TIME ZONE 'UTC',
ALTER COLUMN "paidAt" SET DATA TYPE TIMESTAMPTZ(3) USING "paidAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Credit" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "DevMail" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "DevNodeInvoice" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "settledAt" SET DATA TYPE TIMESTAMPTZ(3) USING "settledAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Endpoint" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "EndpointHealthDay" ALTER COLUMN "lastCheckedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastCheckedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "ExternalListing" ALTER COLUMN "reviewedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "reviewedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "FreeTryUse" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "HealthSample" ALTER COLUMN "checkedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "checkedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Invitation" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Invoice" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "settledAt" SET DATA TYPE TIMESTAMPTZ(3) USING "settledAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "JobLease" ALTER COLUMN "lockedUntil" SET DATA TYPE TIMESTAMPTZ(3) USING "lockedUntil" AT TIME ZONE 'UTC',
ALTER COLUMN "lastRunAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastRunAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "LnurlAuthChallenge" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "signedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "signedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "claimedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "claimedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Membership" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "OutboxEvent" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "dispatchedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "dispatchedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "PaymentSession" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "expiredEventAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiredEventAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Proof" ALTER COLUMN "claimedUntil" SET DATA TYPE TIMESTAMPTZ(3) USING "claimedUntil" AT TIME ZONE 'UTC',
ALTER COLUMN "consumedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "consumedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Session" ALTER COLUMN "expires" SET DATA TYPE TIMESTAMPTZ(3) USING "expires" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Tenant" ALTER COLUMN "previousSecretsValidUntil" SET DATA TYPE TIMESTAMPTZ(3) USING "previousSecretsValidUntil" AT TIME ZONE 'UTC',
ALTER COLUMN "trialStartedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "trialStartedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "UsageCounter" DROP CONSTRAINT "UsageCounter_pkey",
ALTER COLUMN "hour" SET DATA TYPE TIMESTAMPTZ(3) USING "hour" AT TIME ZONE 'UTC',
ADD CONSTRAINT "UsageCounter_pkey" PRIMARY KEY ("endpointId", "hour");

-- AlterTable
ALTER TABLE "User" ALTER COLUMN "emailVerified" SET DATA TYPE TIMESTAMPTZ(3) USING "emailVerified" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "VerificationToken" ALTER COLUMN "expires" SET DATA TYPE TIMESTAMPTZ(3) USING "expires" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Wallet" ALTER COLUMN "connectedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "connectedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastInvoiceAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastInvoiceAt" AT TIME ZONE 'UTC',
ALTER COLUMN "capacityCheckedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "capacityCheckedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "capacityDegradedEventAt" SET DATA TYPE TIMESTAMPTZ(3) USING "capacityDegradedEventAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "WebhookDelivery" ALTER COLUMN "nextAttemptAt" SET DATA TYPE TIMESTAMPTZ(3) USING "nextAttemptAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lockedUntil" SET DATA TYPE TIMESTAMPTZ(3) USING "lockedUntil" AT TIME ZONE 'UTC',
ALTER COLUMN "deliveredAt" SET DATA TYPE TIMESTAMPTZ(3) USING "deliveredAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastAttemptAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastAttemptAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "WebhookSubscription" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- Hand-written (functions are outside Prisma's schema diff): a health sample's day is its UTC day.
-- On timestamptz a bare CAST to date would take the session's day, and the directory reads days as UTC.
CREATE OR REPLACE FUNCTION "health_sample_rollup"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  timed BOOLEAN := NEW."ok" AND NEW."latencyMs" IS NOT NULL;
BEGIN
  INSERT INTO "EndpointHealthDay" AS d ("endpointId", "tenantId", "day", "total", "ok", "okLatencySum", "okLatencyCount", "lastOk", "lastCheckedAt")
  VALUES (NEW."endpointId", NEW."tenantId", CAST(NEW."checkedAt" AT TIME ZONE 'UTC' AS date), 1, CASE WHEN NEW."ok" THEN 1 ELSE 0 END,
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
