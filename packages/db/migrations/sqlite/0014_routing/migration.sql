-- Label routing (issue 23). Written as ADD COLUMN rather than Prisma's table rebuild, so this migration
-- keeps the columns other migrations of the same release add to "workflows" (and they keep these).
ALTER TABLE "workflows" ADD COLUMN "requires" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "workflows" ADD COLUMN "waiting_reason" TEXT;
