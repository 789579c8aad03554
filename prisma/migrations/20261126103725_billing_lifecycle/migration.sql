-- AlterEnum
BEGIN;
CREATE TYPE "BillingStatus_new" AS ENUM ('open', 'invoiced', 'paid', 'no_charge', 'canceled');
ALTER TABLE "public"."BillingCycle" ALTER COLUMN "status" DROP DEFAULT;
ALTER TABLE "BillingCycle" ALTER COLUMN "status" TYPE "BillingStatus_new" USING ("status"::text::"BillingStatus_new");
ALTER TYPE "BillingStatus" RENAME TO "BillingStatus_old";
ALTER TYPE "BillingStatus_new" RENAME TO "BillingStatus";
DROP TYPE "public"."BillingStatus_old";
ALTER TABLE "BillingCycle" ALTER COLUMN "status" SET DEFAULT 'open';
COMMIT;

-- AlterTable
ALTER TABLE "BillingCycle" ADD COLUMN     "capSats" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "invoiceClaimedUntil" TIMESTAMPTZ(3),
ADD COLUMN     "suspendedAt" TIMESTAMPTZ(3),
ADD COLUMN     "tiers" JSONB;

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "trialDays" INTEGER NOT NULL DEFAULT 30;

-- CreateTable
CREATE TABLE "BillableUsage" (
    "tenantId" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "servedRequests" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "BillableUsage_pkey" PRIMARY KEY ("tenantId","hour")
);

-- AddForeignKey
ALTER TABLE "BillableUsage" ADD CONSTRAINT "BillableUsage_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
