-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "search_vector" tsvector;

-- CreateIndex
CREATE INDEX "posts_search_vector_idx" ON "posts" USING GIN ("search_vector");
