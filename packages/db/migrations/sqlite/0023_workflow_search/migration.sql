-- DropIndex
DROP INDEX "workflows_project_id_created_at_idx";

-- CreateIndex
CREATE INDEX "workflows_project_id_created_at_id_idx" ON "workflows"("project_id", "created_at", "id");


-- Search (decision 0063): an FTS5 trigram index of title and requirement, kept by triggers. Its rows are
-- keyed by workflow_search_keys.doc (an INTEGER PRIMARY KEY, which VACUUM keeps), not by the workflows'
-- implicit rowid (which VACUUM may renumber). Prisma cannot describe these: written by hand.
CREATE TABLE "workflow_search_keys" (
    "doc" INTEGER NOT NULL PRIMARY KEY,
    "workflow_id" TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE "workflow_search" USING fts5("title", "requirement", tokenize = 'trigram');

INSERT INTO "workflow_search_keys" ("workflow_id") SELECT "id" FROM "workflows";
INSERT INTO "workflow_search" ("rowid", "title", "requirement")
    SELECT k."doc", w."title", w."requirement" FROM "workflow_search_keys" k JOIN "workflows" w ON w."id" = k."workflow_id";

CREATE TRIGGER "workflow_search_insert" AFTER INSERT ON "workflows" BEGIN
    INSERT INTO "workflow_search_keys" ("workflow_id") VALUES (new."id");
    INSERT INTO "workflow_search" ("rowid", "title", "requirement")
        VALUES ((SELECT "doc" FROM "workflow_search_keys" WHERE "workflow_id" = new."id"), new."title", new."requirement");
END;
CREATE TRIGGER "workflow_search_update" AFTER UPDATE OF "title", "requirement" ON "workflows" BEGIN
    UPDATE "workflow_search" SET "title" = new."title", "requirement" = new."requirement"
        WHERE "rowid" = (SELECT "doc" FROM "workflow_search_keys" WHERE "workflow_id" = new."id");
END;
CREATE TRIGGER "workflow_search_delete" AFTER DELETE ON "workflows" BEGIN
    DELETE FROM "workflow_search" WHERE "rowid" = (SELECT "doc" FROM "workflow_search_keys" WHERE "workflow_id" = old."id");
    DELETE FROM "workflow_search_keys" WHERE "workflow_id" = old."id";
END;
