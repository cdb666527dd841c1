-- AlterTable
ALTER TABLE "comments" ADD COLUMN     "moderated_at" TIMESTAMPTZ(3),
ADD COLUMN     "moderated_by" UUID;

-- CreateIndex
CREATE INDEX "comments_moderated_by_idx" ON "comments"("moderated_by");

-- AddForeignKey
ALTER TABLE "comments" ADD CONSTRAINT "comments_moderated_by_fkey" FOREIGN KEY ("moderated_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
