-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "trace_id" TEXT;
ALTER TABLE "workflows" ADD COLUMN "trace_span_id" TEXT;

