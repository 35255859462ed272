-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "app_key" TEXT,
ADD COLUMN     "finished_at" TIMESTAMP(3),
ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "number" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "plan_revision" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "rerun_of" TEXT,
ADD COLUMN     "started_at" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "execution_log_entries" ADD COLUMN     "duration_ms" INTEGER,
ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "pending_invitations" (
    "project_id" TEXT NOT NULL,
    "login" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "invited_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pending_invitations_pkey" PRIMARY KEY ("project_id","login")
);

-- CreateTable
CREATE TABLE "llm_call_details" (
    "call_id" TEXT NOT NULL,
    "messages" TEXT NOT NULL,
    "reply" TEXT NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "llm_call_details_pkey" PRIMARY KEY ("call_id")
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
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "step_diffs_pkey" PRIMARY KEY ("workflow_id","seq")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "jti" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "scope" TEXT NOT NULL,
    "project_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("jti")
);

-- Run numbers for the workflows that exist: 1, 2, ... per project in creation order
UPDATE "workflows" SET "number" = "numbered"."n"
FROM (SELECT "id", ROW_NUMBER() OVER (PARTITION BY "project_id" ORDER BY "created_at", "id") AS "n" FROM "workflows") AS "numbered"
WHERE "workflows"."id" = "numbered"."id";

-- CreateIndex
CREATE INDEX "pending_invitations_login_idx" ON "pending_invitations"("login");

-- CreateIndex
CREATE INDEX "llm_call_details_created_at_idx" ON "llm_call_details"("created_at");

-- CreateIndex
CREATE INDEX "step_diffs_workflow_id_step_index_idx" ON "step_diffs"("workflow_id", "step_index");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_created_at_idx" ON "api_tokens"("user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "workflows_app_key_key" ON "workflows"("app_key");

-- CreateIndex
CREATE UNIQUE INDEX "workflows_project_id_number_key" ON "workflows"("project_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "workflows_project_id_idempotency_key_key" ON "workflows"("project_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "pending_invitations" ADD CONSTRAINT "pending_invitations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "llm_call_details" ADD CONSTRAINT "llm_call_details_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "llm_call_logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "step_diffs" ADD CONSTRAINT "step_diffs_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

