-- AlterTable
ALTER TABLE "posts" ADD COLUMN     "publish_job_id" UUID;
