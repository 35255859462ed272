-- DropIndex
DROP INDEX "workflows_project_id_assigned_worker_id_created_at_id_idx";

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "last_worker_id" TEXT;

-- The runs held now keep their worker; finished runs named none before this column (decision 0078).
UPDATE "workflows" SET "last_worker_id" = "assigned_worker_id" WHERE "assigned_worker_id" IS NOT NULL;

-- CreateIndex
CREATE INDEX "workflows_project_id_last_worker_id_created_at_id_idx" ON "workflows"("project_id", "last_worker_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "workflows_last_worker_id_created_at_id_idx" ON "workflows"("last_worker_id", "created_at", "id");

