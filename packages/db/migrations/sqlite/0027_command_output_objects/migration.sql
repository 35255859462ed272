-- AlterTable
ALTER TABLE "execution_log_entries" ADD COLUMN "output_object" TEXT;
ALTER TABLE "execution_log_entries" ADD COLUMN "output_total_bytes" INTEGER;

