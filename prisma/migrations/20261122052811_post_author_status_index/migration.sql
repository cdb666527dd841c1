-- CreateIndex
CREATE INDEX "posts_author_id_status_published_at_id_idx" ON "posts"("author_id", "status", "published_at" DESC, "id" DESC);
