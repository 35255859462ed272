-- CreateTable
CREATE TABLE "forge_deliveries" (
    "id" TEXT NOT NULL,
    "repository_id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "workflow_id" TEXT,
    "payload_sha256" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forge_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "forge_actions" (
    "id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_until" TIMESTAMP(3),
    "last_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "forge_actions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "forge_deliveries_repository_id_received_at_idx" ON "forge_deliveries"("repository_id", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "forge_deliveries_repository_id_delivery_id_key" ON "forge_deliveries"("repository_id", "delivery_id");

-- CreateIndex
CREATE INDEX "forge_actions_state_lease_until_idx" ON "forge_actions"("state", "lease_until");

-- CreateIndex
CREATE UNIQUE INDEX "forge_actions_workflow_id_kind_key" ON "forge_actions"("workflow_id", "kind");

