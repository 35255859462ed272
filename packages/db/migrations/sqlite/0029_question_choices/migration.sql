-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "question_choices" TEXT;
ALTER TABLE "workflows" ADD COLUMN "question_deadline" DATETIME;
ALTER TABLE "workflows" ADD COLUMN "question_default" TEXT;

-- CreateIndex
CREATE INDEX "workflows_question_deadline_idx" ON "workflows"("question_deadline");

