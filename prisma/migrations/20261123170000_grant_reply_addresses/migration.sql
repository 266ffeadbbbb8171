-- The reply address of a connection's confirmation mail (spec 5.7 rule 4): revoke+<token>@<domain>.
-- Only the SHA-256 of the token is kept; a reply to a live address revokes that one grant.
CREATE TABLE "grant_reply_addresses" (
    "token_hash" TEXT NOT NULL,
    "grant_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    CONSTRAINT "grant_reply_addresses_pkey" PRIMARY KEY ("token_hash"),
    CONSTRAINT "grant_reply_addresses_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "grant_reply_addresses_grant_id_idx" ON "grant_reply_addresses"("grant_id");
