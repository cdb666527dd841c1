-- CreateTable
CREATE TABLE "list_generations" (
    "id" INTEGER NOT NULL,
    "value" BIGINT NOT NULL,

    CONSTRAINT "list_generations_pkey" PRIMARY KEY ("id")
);
