-- AlterTable
ALTER TABLE "projects" ADD COLUMN "default_budget" TEXT;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "budget" TEXT;
ALTER TABLE "workflows" ADD COLUMN "budget_exceeded_at" DATETIME;

