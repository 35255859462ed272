-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "question_choices" TEXT,
ADD COLUMN     "question_deadline" TIMESTAMP(3),
ADD COLUMN     "question_default" TEXT;

-- CreateIndex
CREATE INDEX "workflows_question_deadline_idx" ON "workflows"("question_deadline");

