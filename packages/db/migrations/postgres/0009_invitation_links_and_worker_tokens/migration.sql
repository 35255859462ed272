-- AlterTable
ALTER TABLE "pending_invitations" ADD COLUMN     "expires_at" TIMESTAMP(3),
ADD COLUMN     "token_hash" TEXT;

-- AlterTable
ALTER TABLE "workers" ADD COLUMN     "token_jti" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "pending_invitations_token_hash_key" ON "pending_invitations"("token_hash");

-- CreateIndex
CREATE INDEX "workers_token_jti_idx" ON "workers"("token_jti");

