-- CreateIndex
CREATE INDEX "comments_author_id_idx" ON "comments"("author_id");
