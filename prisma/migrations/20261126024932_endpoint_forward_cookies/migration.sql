-- AlterTable
ALTER TABLE "Endpoint" ADD COLUMN     "forwardCookies" BOOLEAN NOT NULL DEFAULT false;
