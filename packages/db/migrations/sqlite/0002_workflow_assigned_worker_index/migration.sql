-- CreateIndex
CREATE INDEX "workflows_assigned_worker_id_idx" ON "workflows"("assigned_worker_id");

