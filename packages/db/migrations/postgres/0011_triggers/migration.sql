-- CreateTable
CREATE TABLE "triggers" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "requirement_template" TEXT NOT NULL,
    "events" TEXT NOT NULL DEFAULT '[]',
    "template" TEXT,
    "worker_id" TEXT,
    "rate_limit_per_minute" INTEGER NOT NULL DEFAULT 60,
    "window_started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "window_count" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT NOT NULL,
    "deleted_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "triggers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "trigger_deliveries" (
    "id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "payload_sha256" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trigger_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "triggers_project_id_created_at_idx" ON "triggers"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "trigger_deliveries_workflow_id_key" ON "trigger_deliveries"("workflow_id");

-- CreateIndex
CREATE INDEX "trigger_deliveries_trigger_id_received_at_idx" ON "trigger_deliveries"("trigger_id", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "trigger_deliveries_trigger_id_delivery_id_key" ON "trigger_deliveries"("trigger_id", "delivery_id");

-- AddForeignKey
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trigger_deliveries" ADD CONSTRAINT "trigger_deliveries_trigger_id_fkey" FOREIGN KEY ("trigger_id") REFERENCES "triggers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "trigger_deliveries" ADD CONSTRAINT "trigger_deliveries_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

