-- Who used the credits of a tool call: the application (OAuth client) or the API key, and the tool,
-- so a workspace can see its usage by application and by key.
ALTER TABLE "credit_ledger" ADD COLUMN "api_key_id" TEXT;
ALTER TABLE "credit_ledger" ADD COLUMN "oauth_client_id" TEXT;
ALTER TABLE "credit_ledger" ADD COLUMN "tool" TEXT;
CREATE INDEX "credit_ledger_workspace_id_kind_created_at_idx" ON "credit_ledger" ("workspace_id", "kind", "created_at");
