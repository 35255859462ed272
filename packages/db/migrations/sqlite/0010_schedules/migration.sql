-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "schedule_id" TEXT;

-- CreateTable
CREATE TABLE "schedules" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "requirement" TEXT NOT NULL,
    "template" TEXT,
    "worker_id" TEXT,
    "overlap" TEXT NOT NULL DEFAULT 'skip',
    "catch_up" TEXT NOT NULL DEFAULT 'none',
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT NOT NULL,
    "last_tick_at" DATETIME NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "schedules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "schedule_ticks" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "schedule_id" TEXT NOT NULL,
    "tick_at" DATETIME NOT NULL,
    "outcome" TEXT NOT NULL DEFAULT 'claimed',
    "workflow_id" TEXT,
    "reason" TEXT,
    "caught_up" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "schedule_ticks_schedule_id_fkey" FOREIGN KEY ("schedule_id") REFERENCES "schedules" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "schedules_paused_idx" ON "schedules"("paused");

-- CreateIndex
CREATE UNIQUE INDEX "schedules_project_id_name_key" ON "schedules"("project_id", "name");

-- CreateIndex
CREATE INDEX "schedule_ticks_schedule_id_outcome_idx" ON "schedule_ticks"("schedule_id", "outcome");

-- CreateIndex
CREATE UNIQUE INDEX "schedule_ticks_schedule_id_tick_at_key" ON "schedule_ticks"("schedule_id", "tick_at");

-- CreateIndex
CREATE INDEX "workflows_schedule_id_status_idx" ON "workflows"("schedule_id", "status");

