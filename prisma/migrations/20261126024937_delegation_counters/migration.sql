-- CreateTable
CREATE TABLE "DelegationCounter" (
    "key" TEXT NOT NULL,
    "paymentHash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "limit" BIGINT NOT NULL,
    "used" BIGINT NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DelegationCounter_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "DelegationCounter_paymentHash_idx" ON "DelegationCounter"("paymentHash");

-- The conditional statements keep this true; the constraint makes any other writer fail loudly.
ALTER TABLE "DelegationCounter" ADD CONSTRAINT "DelegationCounter_used_within_limit" CHECK ("used" >= 0 AND "used" <= "limit");
