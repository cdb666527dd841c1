-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "client_address" VARCHAR(100),
ADD COLUMN     "last_used_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "user_agent" VARCHAR(256);
