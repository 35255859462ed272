-- AlterTable
ALTER TABLE "llm_call_logs" ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "error" TEXT,
ADD COLUMN     "finish_reason" TEXT,
ALTER COLUMN "prompt_tokens" DROP NOT NULL,
ALTER COLUMN "completion_tokens" DROP NOT NULL;

