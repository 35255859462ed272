-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "max_running" INTEGER;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "concurrency_key" TEXT,
ADD COLUMN     "concurrency_mode" TEXT,
ADD COLUMN     "priority" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "workflows_project_id_concurrency_key_idx" ON "workflows"("project_id", "concurrency_key");

