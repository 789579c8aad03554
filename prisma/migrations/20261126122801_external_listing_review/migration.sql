-- AlterTable
ALTER TABLE "ExternalListing" ADD COLUMN     "findings" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "notifiedAt" TIMESTAMPTZ(3),
ADD COLUMN     "reviewAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reviewClaim" TEXT,
ADD COLUMN     "reviewDueAt" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "reviewLockedUntil" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "ExternalListing_reviewDueAt_idx" ON "ExternalListing"("reviewDueAt");
