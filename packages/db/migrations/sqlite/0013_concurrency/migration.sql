-- Concurrency and priority (issue 23): plain ADD COLUMNs, so the table is not rebuilt.
ALTER TABLE "projects" ADD COLUMN "max_running" INTEGER;
ALTER TABLE "workflows" ADD COLUMN "priority" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "workflows" ADD COLUMN "concurrency_key" TEXT;
ALTER TABLE "workflows" ADD COLUMN "concurrency_mode" TEXT;
CREATE INDEX "workflows_project_id_concurrency_key_idx" ON "workflows"("project_id", "concurrency_key");
