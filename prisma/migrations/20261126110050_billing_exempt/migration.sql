-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "billingExempt" BOOLEAN NOT NULL DEFAULT false;
