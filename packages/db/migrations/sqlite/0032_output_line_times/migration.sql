-- AlterTable
ALTER TABLE "execution_log_entries" ADD COLUMN "output_line_times" TEXT;
