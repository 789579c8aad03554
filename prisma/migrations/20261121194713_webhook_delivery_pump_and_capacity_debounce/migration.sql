-- AlterTable
ALTER TABLE "Wallet" ADD COLUMN     "capacityDegradedEventAt" TIMESTAMP(3),
ADD COLUMN     "capacityPendingCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "capacityPendingReason" TEXT,
ADD COLUMN     "capacityPendingStatus" TEXT;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "lastAttemptAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_status_nextAttemptAt_idx" ON "WebhookDelivery"("subscriptionId", "status", "nextAttemptAt");
