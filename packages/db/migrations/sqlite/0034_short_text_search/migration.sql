-- Search of 1 or 2 characters (decision 0087). The FTS5 trigram table ends every column text with two
-- U+0001, so every place a 1- or 2-character text occurs begins some trigram, the end included. Such a
-- text's candidates are the documents of the trigrams it begins: a range of terms in the fts5vocab
-- table `workflow_search_terms`. The workflows' own texts are unchanged; instr decides, as before.
DROP TRIGGER "workflow_search_insert";
DROP TRIGGER "workflow_search_update";
DELETE FROM "workflow_search";
INSERT INTO "workflow_search" ("rowid", "title", "requirement")
    SELECT k."doc", w."title" || char(1, 1), w."requirement" || char(1, 1)
      FROM "workflow_search_keys" k JOIN "workflows" w ON w."id" = k."workflow_id";

CREATE TRIGGER "workflow_search_insert" AFTER INSERT ON "workflows" BEGIN
    INSERT INTO "workflow_search_keys" ("workflow_id") VALUES (new."id");
    INSERT INTO "workflow_search" ("rowid", "title", "requirement")
        VALUES ((SELECT "doc" FROM "workflow_search_keys" WHERE "workflow_id" = new."id"),
                new."title" || char(1, 1), new."requirement" || char(1, 1));
END;
CREATE TRIGGER "workflow_search_update" AFTER UPDATE OF "title", "requirement" ON "workflows" BEGIN
    UPDATE "workflow_search" SET "title" = new."title" || char(1, 1), "requirement" = new."requirement" || char(1, 1)
        WHERE "rowid" = (SELECT "doc" FROM "workflow_search_keys" WHERE "workflow_id" = new."id");
END;

CREATE VIRTUAL TABLE "workflow_search_terms" USING fts5vocab("workflow_search", 'instance');
