-- A refresh writes four rows of oauth_models (issue 26): the retired token consumed, its successor,
-- the access token, and now and then its grant's expiry. Fewer index entries per refresh:
-- only sessions and interactions have a uid (findByUid); codes and tokens, most of the table, have
-- none, so the uid index leaves them out;
DROP INDEX "oauth_models_model_uid_idx";
CREATE INDEX "oauth_models_model_uid_idx" ON "oauth_models"("model", "uid") WHERE "uid" IS NOT NULL;
-- and pages keep a fifth free, so that a token's consume (no indexed column changes) can stay on its
-- page as a heap-only update instead of writing an entry into every index.
ALTER TABLE "oauth_models" SET (fillfactor = 80);
