-- Each claim of an idempotency key carries the token of the request that holds it, so a request
-- whose stale claim was taken over can neither complete nor release the new owner's claim.
ALTER TABLE "idempotency_keys" ADD COLUMN "owner_token" TEXT;
