-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "default_budget" TEXT;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "budget" TEXT,
ADD COLUMN     "budget_exceeded_at" TIMESTAMP(3);

