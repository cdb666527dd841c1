-- CreateTable
CREATE TABLE "admin_grants" (
    "email" VARCHAR(254) NOT NULL,
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "admin_grants_pkey" PRIMARY KEY ("email")
);
