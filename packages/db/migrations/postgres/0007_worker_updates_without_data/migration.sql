-- AlterTable
ALTER TABLE "worker_updates" DROP COLUMN "data";

