-- DropIndex
DROP INDEX "workflows_project_id_created_at_idx";

-- CreateIndex
CREATE INDEX "workflows_project_id_created_at_id_idx" ON "workflows"("project_id", "created_at", "id");


-- Search (decision 0063): substring search of title and requirement through trigram indexes, which
-- LIKE '%text%' on the lower-cased column uses. Without fastupdate: a search never scans a pending list
-- of recent rows (up to 4 MB until a vacuum merges it). Prisma cannot describe expression indexes: by hand.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "workflows_title_trgm_idx" ON "workflows" USING gin (lower("title") gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX "workflows_requirement_trgm_idx" ON "workflows" USING gin (lower("requirement") gin_trgm_ops) WITH (fastupdate = off);
