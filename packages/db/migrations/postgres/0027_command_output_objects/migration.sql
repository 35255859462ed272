-- AlterTable
ALTER TABLE "execution_log_entries" ADD COLUMN     "output_object" TEXT,
ADD COLUMN     "output_total_bytes" INTEGER;

