-- CreateTable
CREATE TABLE "post_revisions" (
    "id" UUID NOT NULL,
    "post_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "editor_id" UUID,
    "changed" TEXT[],
    "title" VARCHAR(200) NOT NULL,
    "body" TEXT NOT NULL,
    "excerpt" VARCHAR(500) NOT NULL,
    "slug" VARCHAR(80) NOT NULL,
    "status" "PostStatus" NOT NULL,
    "published_at" TIMESTAMPTZ(3),
    "category_ids" UUID[],
    "byte_size" INTEGER NOT NULL,

    CONSTRAINT "post_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "post_revision_images" (
    "revision_id" UUID NOT NULL,
    "image_key" VARCHAR(80) NOT NULL,
    "width" INTEGER NOT NULL,

    CONSTRAINT "post_revision_images_pkey" PRIMARY KEY ("revision_id","image_key")
);

-- CreateIndex
CREATE INDEX "post_revisions_editor_id_idx" ON "post_revisions"("editor_id");

-- CreateIndex
CREATE UNIQUE INDEX "post_revisions_post_id_number_key" ON "post_revisions"("post_id", "number");

-- CreateIndex
CREATE INDEX "post_revision_images_image_key_idx" ON "post_revision_images"("image_key");

-- AddForeignKey
ALTER TABLE "post_revisions" ADD CONSTRAINT "post_revisions_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_revisions" ADD CONSTRAINT "post_revisions_editor_id_fkey" FOREIGN KEY ("editor_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_revision_images" ADD CONSTRAINT "post_revision_images_revision_id_fkey" FOREIGN KEY ("revision_id") REFERENCES "post_revisions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_revision_images" ADD CONSTRAINT "post_revision_images_image_key_fkey" FOREIGN KEY ("image_key") REFERENCES "images"("key") ON DELETE RESTRICT ON UPDATE CASCADE;
