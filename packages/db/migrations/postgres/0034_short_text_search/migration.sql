-- Search (decision 0087). The texts a search reads move to a table of their own, `workflow_search`: one
-- row per run and field (`title`, `requirement`) with the field's lower-cased text and its distinct
-- characters and character pairs (`grams`), each under a GIN index. Triggers write a field's row only
-- when that field changes.
-- - The trigram indexes leave `workflows`. There, every update of a run that is not HOT (a claim, each
--   status change) wrote every trigram of both texts into GIN again; a new title rewrites its own row
--   here, not the requirement's.
-- - Texts of 1 or 2 characters, which pg_trgm cannot find, are found through `grams @> ARRAY[text]`;
--   strpos decides.
-- Prisma cannot describe the functions, triggers and GIN indexes: the whole of it is by hand (the drift
-- test leaves it out).
CREATE TABLE "workflow_search" (
    "workflow_id" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "grams" TEXT[],
    CONSTRAINT "workflow_search_pkey" PRIMARY KEY ("workflow_id", "field"),
    CONSTRAINT "workflow_search_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id")
        ON DELETE CASCADE ON UPDATE CASCADE
);

-- The distinct characters and character pairs of a text; NULL past 4,096 of them (a prose text of
-- 100,000 characters has a few thousand, random text up to two per character): such a field is not
-- indexed but always a candidate, which strpos decides, so no text costs more than 4,096 GIN entries.
-- One pass over the characters (substr(text, i, …) would scan from the start for each i: quadratic).
CREATE FUNCTION "workflow_grams_of"(text TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN cardinality(grams) <= 4096 THEN grams END FROM (
        SELECT coalesce(array_agg(DISTINCT gram) FILTER (WHERE gram <> ''), '{}') FROM (
            SELECT c, c || lead(c) OVER (ORDER BY i) FROM regexp_split_to_table(text, '') WITH ORDINALITY chars(c, i)
        ) pairs(one, two) CROSS JOIN LATERAL (VALUES (one), (two)) grams(gram)
    ) distinct_grams(grams)
$$;

-- Writes the search row of each field that is new or changed.
CREATE FUNCTION "workflow_search_keep"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "workflow_search" ("workflow_id", "field", "text", "grams")
        SELECT NEW."id", f.field, lower(f.value), "workflow_grams_of"(lower(f.value))
          FROM (VALUES ('title', NEW."title", TG_OP = 'INSERT' OR OLD."title" IS DISTINCT FROM NEW."title"),
                       ('requirement', NEW."requirement", TG_OP = 'INSERT' OR OLD."requirement" IS DISTINCT FROM NEW."requirement"))
               AS f(field, value, changed)
         WHERE f.changed
    ON CONFLICT ("workflow_id", "field") DO UPDATE SET "text" = EXCLUDED."text", "grams" = EXCLUDED."grams";
    RETURN NULL;
END
$$;

CREATE TRIGGER "workflow_search_insert" AFTER INSERT ON "workflows"
    FOR EACH ROW EXECUTE FUNCTION "workflow_search_keep"();
CREATE TRIGGER "workflow_search_update" AFTER UPDATE OF "title", "requirement" ON "workflows"
    FOR EACH ROW WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."requirement" IS DISTINCT FROM NEW."requirement")
    EXECUTE FUNCTION "workflow_search_keep"();

INSERT INTO "workflow_search" ("workflow_id", "field", "text", "grams")
    SELECT w."id", f.field, lower(f.value), "workflow_grams_of"(lower(f.value))
      FROM "workflows" w CROSS JOIN LATERAL (VALUES ('title', w."title"), ('requirement', w."requirement")) AS f(field, value);

-- A search reads a few thousand rows of it at most: starting a parallel worker costs more than that.
ALTER TABLE "workflow_search" SET (parallel_workers = 0);

DROP INDEX "workflows_title_trgm_idx";
DROP INDEX "workflows_requirement_trgm_idx";
-- Without fastupdate, as before (decision 0063): a search never scans a pending list of recent rows.
CREATE INDEX "workflow_search_text_trgm_idx" ON "workflow_search" USING gin ("text" gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX "workflow_search_grams_idx" ON "workflow_search" USING gin ("grams") WITH (fastupdate = off);
CREATE INDEX "workflow_search_ungrammed_idx" ON "workflow_search" ("workflow_id") WHERE "grams" IS NULL;
