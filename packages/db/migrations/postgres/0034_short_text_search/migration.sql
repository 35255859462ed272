-- Search (decision 0087). The texts a search reads move to a table of their own, `workflow_search`,
-- kept by triggers only when a run's title or requirement changes: lower(title), lower(requirement)
-- and their distinct characters and character pairs (`grams`), each under a GIN index.
-- - The trigram indexes leave `workflows`. There, every update of a run that is not HOT (a claim, each
--   status change) wrote every trigram of both texts into GIN again.
-- - Texts of 1 or 2 characters, which pg_trgm cannot find, are found through `grams @> ARRAY[text]`;
--   strpos decides.
-- Prisma cannot describe the functions, triggers and GIN indexes: the whole of it is by hand (the drift
-- test leaves it out).
CREATE TABLE "workflow_search" (
    "workflow_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "requirement" TEXT NOT NULL,
    "grams" TEXT[] NOT NULL,
    CONSTRAINT "workflow_search_pkey" PRIMARY KEY ("workflow_id"),
    CONSTRAINT "workflow_search_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id")
        ON DELETE CASCADE ON UPDATE CASCADE
);

-- The distinct characters and character pairs of a text.
CREATE FUNCTION "workflow_grams_of"(text TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT gram), '{}') FROM (
        SELECT substr(text, i, 1) FROM generate_series(1, length(text)) i
        UNION ALL
        SELECT substr(text, i, 2) FROM generate_series(1, length(text) - 1) i
    ) grams(gram)
$$;

CREATE FUNCTION "workflow_search_keep"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    title TEXT := lower(NEW."title");
    requirement TEXT := lower(NEW."requirement");
BEGIN
    INSERT INTO "workflow_search" ("workflow_id", "title", "requirement", "grams")
        VALUES (NEW."id", title, requirement, "workflow_grams_of"(title) || "workflow_grams_of"(requirement))
        ON CONFLICT ("workflow_id") DO UPDATE
            SET "title" = EXCLUDED."title", "requirement" = EXCLUDED."requirement", "grams" = EXCLUDED."grams";
    RETURN NULL;
END
$$;

CREATE TRIGGER "workflow_search_insert" AFTER INSERT ON "workflows"
    FOR EACH ROW EXECUTE FUNCTION "workflow_search_keep"();
CREATE TRIGGER "workflow_search_update" AFTER UPDATE OF "title", "requirement" ON "workflows"
    FOR EACH ROW WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."requirement" IS DISTINCT FROM NEW."requirement")
    EXECUTE FUNCTION "workflow_search_keep"();

INSERT INTO "workflow_search" ("workflow_id", "title", "requirement", "grams")
    SELECT "id", lower("title"), lower("requirement"),
           "workflow_grams_of"(lower("title")) || "workflow_grams_of"(lower("requirement"))
      FROM "workflows";

DROP INDEX "workflows_title_trgm_idx";
DROP INDEX "workflows_requirement_trgm_idx";
-- Without fastupdate, as before (decision 0063): a search never scans a pending list of recent rows.
CREATE INDEX "workflow_search_title_trgm_idx" ON "workflow_search" USING gin ("title" gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX "workflow_search_requirement_trgm_idx" ON "workflow_search" USING gin ("requirement" gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX "workflow_search_grams_idx" ON "workflow_search" USING gin ("grams") WITH (fastupdate = off);
