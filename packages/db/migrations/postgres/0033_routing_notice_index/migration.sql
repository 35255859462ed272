-- Routing notices (decision 0086): every refresh reads the runs whose notice is set, a handful among
-- all runs. A partial index holds just those rows, so the read does not grow with the table. Prisma
-- cannot describe a partial index: by hand (the drift test leaves it out).
CREATE INDEX "workflows_waiting_reason_idx" ON "workflows" ("waiting_reason") WHERE "waiting_reason" IS NOT NULL;
