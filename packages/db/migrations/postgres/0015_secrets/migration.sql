-- Project and instance secrets, and their audit (issue 24): new tables only, no existing table is rebuilt.
-- CreateTable
CREATE TABLE "secrets" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "project_id" TEXT,
    "owner_key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "iv" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "visibility" TEXT,
    "created_by" TEXT,
    "updated_by" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "secret_events" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "project_id" TEXT,
    "name" TEXT NOT NULL,
    "actor_id" TEXT,
    "workflow_id" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "secret_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "secrets_project_id_idx" ON "secrets"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "secrets_scope_owner_key_name_key" ON "secrets"("scope", "owner_key", "name");

-- CreateIndex
CREATE INDEX "secret_events_project_id_at_idx" ON "secret_events"("project_id", "at");

-- CreateIndex
CREATE INDEX "secret_events_scope_at_idx" ON "secret_events"("scope", "at");

-- CreateIndex
CREATE UNIQUE INDEX "secret_events_workflow_id_scope_name_key" ON "secret_events"("workflow_id", "scope", "name");

-- AddForeignKey
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "secret_events" ADD CONSTRAINT "secret_events_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

