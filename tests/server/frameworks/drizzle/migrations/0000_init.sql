CREATE TABLE "orders" (
	"id" bigint PRIMARY KEY DEFAULT snowflake_nextval() NOT NULL,
	"note" text
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" "snowflake" PRIMARY KEY DEFAULT snowflake_nextval() NOT NULL,
	"note" text
);
