-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_worker_updates" (
    "workflow_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "worker_id" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("workflow_id", "seq"),
    CONSTRAINT "worker_updates_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_worker_updates" ("created_at", "kind", "seq", "worker_id", "workflow_id") SELECT "created_at", "kind", "seq", "worker_id", "workflow_id" FROM "worker_updates";
DROP TABLE "worker_updates";
ALTER TABLE "new_worker_updates" RENAME TO "worker_updates";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

