-- CreateTable
CREATE TABLE "repositories" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "forge" TEXT NOT NULL,
    "api_base_url" TEXT NOT NULL,
    "default_branch" TEXT NOT NULL DEFAULT 'main',
    "credential_kind" TEXT NOT NULL,
    "trigger_label" TEXT,
    "trigger_command" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "repositories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workflow_repositories" (
    "id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "repository_id" TEXT NOT NULL,
    "base_branch" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "head_sha" TEXT,
    "pushed_at" TIMESTAMP(3),
    "push_error" TEXT,
    "diff" TEXT,
    "diff_truncated" BOOLEAN NOT NULL DEFAULT false,
    "pr_number" INTEGER,
    "pr_url" TEXT,
    "pr_state" TEXT,
    "issue_number" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "workflow_repositories_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "repositories_project_id_deleted_at_idx" ON "repositories"("project_id", "deleted_at");

-- CreateIndex
CREATE UNIQUE INDEX "workflow_repositories_workflow_id_key" ON "workflow_repositories"("workflow_id");

-- CreateIndex
CREATE INDEX "workflow_repositories_repository_id_idx" ON "workflow_repositories"("repository_id");

-- AddForeignKey
ALTER TABLE "workflow_repositories" ADD CONSTRAINT "workflow_repositories_repository_id_fkey" FOREIGN KEY ("repository_id") REFERENCES "repositories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

