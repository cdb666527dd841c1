-- CreateEnum
CREATE TYPE "ImageLocation" AS ENUM ('database', 's3');

-- AlterTable
ALTER TABLE "images" ADD COLUMN     "location" "ImageLocation" NOT NULL DEFAULT 'database',
ALTER COLUMN "data" DROP NOT NULL;

-- CreateTable
CREATE TABLE "media" (
    "id" UUID NOT NULL,
    "owner_id" UUID NOT NULL,
    "alt" VARCHAR(1000),
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "byte_size" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "media_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "media_renditions" (
    "media_id" UUID NOT NULL,
    "image_key" VARCHAR(80) NOT NULL,
    "width" INTEGER NOT NULL,

    CONSTRAINT "media_renditions_pkey" PRIMARY KEY ("media_id","image_key")
);

-- CreateTable
CREATE TABLE "post_media" (
    "post_id" UUID NOT NULL,
    "media_id" UUID NOT NULL,

    CONSTRAINT "post_media_pkey" PRIMARY KEY ("post_id","media_id")
);

-- CreateIndex
CREATE INDEX "media_owner_id_created_at_id_idx" ON "media"("owner_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "media_created_at_id_idx" ON "media"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "media_renditions_image_key_idx" ON "media_renditions"("image_key");

-- CreateIndex
CREATE INDEX "post_media_media_id_idx" ON "post_media"("media_id");

-- AddForeignKey
ALTER TABLE "media" ADD CONSTRAINT "media_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media_renditions" ADD CONSTRAINT "media_renditions_media_id_fkey" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "media_renditions" ADD CONSTRAINT "media_renditions_image_key_fkey" FOREIGN KEY ("image_key") REFERENCES "images"("key") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_media" ADD CONSTRAINT "post_media_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "post_media" ADD CONSTRAINT "post_media_media_id_fkey" FOREIGN KEY ("media_id") REFERENCES "media"("id") ON DELETE CASCADE ON UPDATE CASCADE;
