-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "requires" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "waiting_reason" TEXT;

