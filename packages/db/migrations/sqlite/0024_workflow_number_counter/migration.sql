-- AlterTable
ALTER TABLE "projects" ADD COLUMN "last_workflow_number" INTEGER NOT NULL DEFAULT 0;

-- Backfill: each project continues after the highest run number it has given
UPDATE "projects" SET "last_workflow_number" = (
    SELECT COALESCE(MAX("number"), 0) FROM "workflows" WHERE "workflows"."project_id" = "projects"."id"
);
