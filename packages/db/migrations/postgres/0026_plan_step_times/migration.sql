-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "plan_revising" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "plan_step_times" (
    "workflow_id" TEXT NOT NULL,
    "step_index" INTEGER NOT NULL,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "plan_step_times_pkey" PRIMARY KEY ("workflow_id","step_index")
);

-- AddForeignKey
ALTER TABLE "plan_step_times" ADD CONSTRAINT "plan_step_times_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id") ON DELETE CASCADE ON UPDATE CASCADE;



-- Backfill: each step's times as the plan_step_status events give them (the last running, the last done after it)
WITH "s" AS (
    SELECT "workflow_id", "seq", "created_at", CAST("data"->>'index' AS INTEGER) AS "idx",
           ("data"->>'status') AS "status"
    FROM "events" WHERE "type" = 'plan_step_status'
), "r" AS (
    SELECT "workflow_id", "idx", MAX("seq") AS "seq" FROM "s" WHERE "status" = 'running' GROUP BY "workflow_id", "idx"
), "d" AS (
    SELECT "s"."workflow_id", "s"."idx", MAX("s"."seq") AS "seq" FROM "s"
    LEFT JOIN "r" ON "r"."workflow_id" = "s"."workflow_id" AND "r"."idx" = "s"."idx"
    WHERE "s"."status" = 'done' AND "s"."seq" > COALESCE("r"."seq", -1) GROUP BY "s"."workflow_id", "s"."idx"
), "k" AS (
    SELECT "workflow_id", "idx" FROM "r" UNION SELECT "workflow_id", "idx" FROM "d"
)
INSERT INTO "plan_step_times" ("workflow_id", "step_index", "started_at", "finished_at")
SELECT "k"."workflow_id", "k"."idx",
    (SELECT "created_at" FROM "events" WHERE "workflow_id" = "r"."workflow_id" AND "seq" = "r"."seq"),
    (SELECT "created_at" FROM "events" WHERE "workflow_id" = "d"."workflow_id" AND "seq" = "d"."seq")
FROM "k"
LEFT JOIN "r" ON "r"."workflow_id" = "k"."workflow_id" AND "r"."idx" = "k"."idx"
LEFT JOIN "d" ON "d"."workflow_id" = "k"."workflow_id" AND "d"."idx" = "k"."idx";

-- Backfill: a plan is being revised when the workflow's latest feedback has no snapshot after it
UPDATE "workflows" SET "plan_revising" = true
WHERE "plan_revision" > 0 AND EXISTS (
    SELECT 1 FROM "events" AS "f"
    WHERE "f"."workflow_id" = "workflows"."id" AND "f"."type" = 'workflow_action'
      AND ("f"."data"->>'action') = 'feedback'
      AND NOT EXISTS (
        SELECT 1 FROM "events" AS "u"
        WHERE "u"."workflow_id" = "f"."workflow_id" AND "u"."seq" > "f"."seq" AND "u"."type" = 'workflow_update'
          AND ("u"."data"->>'kind') = 'snapshot'
      )
);
