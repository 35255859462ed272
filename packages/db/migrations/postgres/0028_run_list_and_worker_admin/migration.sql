-- AlterTable
ALTER TABLE "workers" ADD COLUMN     "draining" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "paused_at" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "workflows_project_id_created_by_created_at_id_idx" ON "workflows"("project_id", "created_by", "created_at", "id");

-- CreateIndex
CREATE INDEX "workflows_project_id_assigned_worker_id_created_at_id_idx" ON "workflows"("project_id", "assigned_worker_id", "created_at", "id");

