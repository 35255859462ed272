-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_llm_call_logs" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workflow_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "phase" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "prompt_tokens" INTEGER,
    "completion_tokens" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "step_index" INTEGER,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "finish_reason" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "llm_call_logs_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_llm_call_logs" ("completion_tokens", "created_at", "id", "latency_ms", "model", "phase", "prompt_tokens", "seq", "step_index", "workflow_id") SELECT "completion_tokens", "created_at", "id", "latency_ms", "model", "phase", "prompt_tokens", "seq", "step_index", "workflow_id" FROM "llm_call_logs";
DROP TABLE "llm_call_logs";
ALTER TABLE "new_llm_call_logs" RENAME TO "llm_call_logs";
CREATE UNIQUE INDEX "llm_call_logs_workflow_id_seq_key" ON "llm_call_logs"("workflow_id", "seq");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

