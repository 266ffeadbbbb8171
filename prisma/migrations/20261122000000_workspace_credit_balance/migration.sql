-- The running balance of each workspace's credit ledger, kept by libs/credits under the
-- workspace's credit lock, so reading it does not sum the whole ledger.
ALTER TABLE "workspaces" ADD COLUMN "credit_balance" INTEGER NOT NULL DEFAULT 0;

UPDATE "workspaces" w
   SET "credit_balance" = COALESCE((SELECT SUM(l."amount") FROM "credit_ledger" l WHERE l."workspace_id" = w."id"), 0);
