-- CreateTable
CREATE TABLE "pending_invitations" (
    "project_id" TEXT NOT NULL,
    "login" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "invited_by" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("project_id", "login"),
    CONSTRAINT "pending_invitations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "llm_call_details" (
    "call_id" TEXT NOT NULL PRIMARY KEY,
    "messages" TEXT NOT NULL,
    "reply" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "llm_call_details_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "llm_call_logs" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "step_diffs" (
    "workflow_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "step_index" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 0,
    "files" JSONB NOT NULL,
    "patch" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("workflow_id", "seq"),
    CONSTRAINT "step_diffs_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "jti" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "scope" TEXT NOT NULL,
    "project_id" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "revoked_at" DATETIME
);

-- AlterTable (ADD COLUMN: the migrator runs inside a transaction, where SQLite ignores
-- PRAGMA foreign_keys, so rebuilding the table would cascade-delete every row that references it)
ALTER TABLE "workflows" ADD COLUMN "number" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "workflows" ADD COLUMN "rerun_of" TEXT;
ALTER TABLE "workflows" ADD COLUMN "idempotency_key" TEXT;
ALTER TABLE "workflows" ADD COLUMN "app_key" TEXT;
ALTER TABLE "workflows" ADD COLUMN "plan_revision" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "workflows" ADD COLUMN "started_at" DATETIME;
ALTER TABLE "workflows" ADD COLUMN "finished_at" DATETIME;
ALTER TABLE "execution_log_entries" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "execution_log_entries" ADD COLUMN "duration_ms" INTEGER;

-- Run numbers for the workflows that exist: 1, 2, ... per project in creation order
UPDATE "workflows" SET "number" = (
    SELECT COUNT(*) FROM "workflows" AS "w2"
    WHERE "w2"."project_id" = "workflows"."project_id"
      AND ("w2"."created_at" < "workflows"."created_at"
           OR ("w2"."created_at" = "workflows"."created_at" AND "w2"."id" <= "workflows"."id"))
);

CREATE UNIQUE INDEX "workflows_app_key_key" ON "workflows"("app_key");
CREATE UNIQUE INDEX "workflows_project_id_number_key" ON "workflows"("project_id", "number");
CREATE UNIQUE INDEX "workflows_project_id_idempotency_key_key" ON "workflows"("project_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "pending_invitations_login_idx" ON "pending_invitations"("login");

-- CreateIndex
CREATE INDEX "llm_call_details_created_at_idx" ON "llm_call_details"("created_at");

-- CreateIndex
CREATE INDEX "step_diffs_workflow_id_step_index_idx" ON "step_diffs"("workflow_id", "step_index");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_created_at_idx" ON "api_tokens"("user_id", "created_at");

