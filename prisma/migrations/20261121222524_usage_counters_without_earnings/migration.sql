-- AlterTable
ALTER TABLE "UsageCounter" DROP COLUMN "earningsSats";

-- CreateIndex
CREATE INDEX "Invoice_tenantId_settledAt_idx" ON "Invoice"("tenantId", "settledAt");
