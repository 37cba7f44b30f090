-- CreateTable
CREATE TABLE "items" (
    "id" BIGINT NOT NULL DEFAULT snowflake_nextval(),
    "note" TEXT,

    CONSTRAINT "items_pkey" PRIMARY KEY ("id")
);

-- CreateTable: the snowflake type, written by hand (the model says BigInt)
CREATE TABLE "orders" (
    "id" snowflake NOT NULL DEFAULT snowflake_nextval(),
    "note" TEXT,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);
