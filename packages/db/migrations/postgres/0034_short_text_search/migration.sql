-- Search of 1 or 2 characters (decision 0087): pg_trgm finds no trigram in such a text. Each workflow's
-- distinct characters and character pairs of lower(title) and lower(requirement) are kept in a table of
-- their own under a GIN index, so `grams @> ARRAY[lower(text)]` finds the candidates and the substring
-- test decides. A table of its own, kept by triggers when a text changes: an expression index on
-- `workflows` would be computed again on every update of a run's status. Prisma cannot describe the
-- functions and triggers: the whole of it is by hand (the drift test leaves it out).
CREATE TABLE "workflow_grams" (
    "workflow_id" TEXT NOT NULL,
    "grams" TEXT[] NOT NULL,
    CONSTRAINT "workflow_grams_pkey" PRIMARY KEY ("workflow_id"),
    CONSTRAINT "workflow_grams_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id")
        ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "workflow_grams_grams_idx" ON "workflow_grams" USING gin ("grams") WITH (fastupdate = off);

-- The distinct characters and character pairs of a text.
CREATE FUNCTION "workflow_grams_of"(text TEXT) RETURNS TEXT[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT gram), '{}') FROM (
        SELECT substr(text, i, 1) FROM generate_series(1, length(text)) i
        UNION ALL
        SELECT substr(text, i, 2) FROM generate_series(1, length(text) - 1) i
    ) grams(gram)
$$;

CREATE FUNCTION "workflow_grams_keep"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "workflow_grams" ("workflow_id", "grams")
        VALUES (NEW."id", "workflow_grams_of"(lower(NEW."title")) || "workflow_grams_of"(lower(NEW."requirement")))
        ON CONFLICT ("workflow_id") DO UPDATE SET "grams" = EXCLUDED."grams";
    RETURN NULL;
END
$$;

CREATE TRIGGER "workflow_grams_insert" AFTER INSERT ON "workflows"
    FOR EACH ROW EXECUTE FUNCTION "workflow_grams_keep"();
CREATE TRIGGER "workflow_grams_update" AFTER UPDATE OF "title", "requirement" ON "workflows"
    FOR EACH ROW WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."requirement" IS DISTINCT FROM NEW."requirement")
    EXECUTE FUNCTION "workflow_grams_keep"();

INSERT INTO "workflow_grams" ("workflow_id", "grams")
    SELECT "id", "workflow_grams_of"(lower("title")) || "workflow_grams_of"(lower("requirement")) FROM "workflows";
