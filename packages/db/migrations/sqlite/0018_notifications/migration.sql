-- CreateTable
CREATE TABLE "notification_preferences" (
    "user_id" TEXT NOT NULL PRIMARY KEY,
    "email_enabled" BOOLEAN NOT NULL DEFAULT false,
    "email_address" TEXT,
    "email_events" TEXT NOT NULL DEFAULT '[]',
    "chat_enabled" BOOLEAN NOT NULL DEFAULT false,
    "chat_format" TEXT NOT NULL DEFAULT 'slack',
    "chat_events" TEXT NOT NULL DEFAULT '[]',
    "projects" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "answer_links" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "token_sha256" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "question_seq" INTEGER NOT NULL,
    "question_sha256" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "notification_deliveries" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "event_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "answer_links_token_sha256_key" ON "answer_links"("token_sha256");

-- CreateIndex
CREATE INDEX "answer_links_workflow_id_idx" ON "answer_links"("workflow_id");

-- CreateIndex
CREATE INDEX "notification_deliveries_user_id_workflow_id_channel_created_at_idx" ON "notification_deliveries"("user_id", "workflow_id", "channel", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "notification_deliveries_event_id_user_id_channel_key" ON "notification_deliveries"("event_id", "user_id", "channel");

