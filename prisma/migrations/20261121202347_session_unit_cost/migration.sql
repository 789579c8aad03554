-- AlterTable
ALTER TABLE "PaymentSession" ADD COLUMN     "unitCostSats" INTEGER;
