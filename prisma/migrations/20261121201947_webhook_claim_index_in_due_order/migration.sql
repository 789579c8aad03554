-- DropIndex
DROP INDEX "WebhookDelivery_subscriptionId_status_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_nextAttemptAt_idx" ON "WebhookDelivery"("subscriptionId", "nextAttemptAt");
