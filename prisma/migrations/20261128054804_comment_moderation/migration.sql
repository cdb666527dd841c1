-- CreateEnum
CREATE TYPE "CommentStatus" AS ENUM ('published', 'pending', 'spam', 'hidden');

-- DropIndex
DROP INDEX "comments_author_id_idx";

-- AlterTable
ALTER TABLE "comments" ADD COLUMN     "announced" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "body_hash" VARCHAR(64),
ADD COLUMN     "status" "CommentStatus" NOT NULL DEFAULT 'published';

-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "comments_open" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE INDEX "comments_author_id_created_at_idx" ON "comments"("author_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "comments_status_created_at_id_idx" ON "comments"("status", "created_at", "id");

-- CreateIndex
CREATE INDEX "comments_post_id_author_id_body_hash_idx" ON "comments"("post_id", "author_id", "body_hash");
