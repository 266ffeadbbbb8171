-- Issue 48: each signal's quotes checked against its source when it is written.
ALTER TABLE "signals" ADD COLUMN "quote" TEXT;
ALTER TABLE "signals" ADD COLUMN "quotes" JSONB;
ALTER TABLE "signals" ADD COLUMN "quotes_verified" TEXT;
