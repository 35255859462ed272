-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "steer_action" TEXT;
ALTER TABLE "workflows" ADD COLUMN "steer_message" TEXT;
ALTER TABLE "workflows" ADD COLUMN "title_first_seq" INTEGER;
ALTER TABLE "workflows" ADD COLUMN "title_last_seq" INTEGER;
ALTER TABLE "workflows" ADD COLUMN "title_worker_id" TEXT;

-- AlterTable
ALTER TABLE "workers" ADD COLUMN "replica_id" TEXT;

