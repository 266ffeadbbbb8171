-- oidc-provider's models (clients, grants, sessions, interactions, codes, tokens) through our adapter.
-- Every row is keyed by the SHA-256 of its id: for codes and tokens the id is the secret itself,
-- so a dump of this table holds nothing a client could present.
CREATE TABLE "oauth_models" (
    "model" TEXT NOT NULL,
    "id_hash" TEXT NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "payload" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_models_pkey" PRIMARY KEY ("model", "id_hash")
);
CREATE INDEX "oauth_models_grant_id_idx" ON "oauth_models"("grant_id");
CREATE INDEX "oauth_models_model_uid_idx" ON "oauth_models"("model", "uid");
CREATE INDEX "oauth_models_expires_at_idx" ON "oauth_models"("expires_at");

-- What oidc-provider's Grant cannot hold: the one workspace each authorization is bound to.
CREATE TABLE "oauth_grants" (
    "grant_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_name" TEXT NOT NULL,
    "scopes" TEXT[],
    "third_party_access" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_grants_pkey" PRIMARY KEY ("grant_id")
);
CREATE INDEX "oauth_grants_workspace_id_client_id_idx" ON "oauth_grants"("workspace_id", "client_id");
CREATE INDEX "oauth_grants_user_id_idx" ON "oauth_grants"("user_id");
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Third-party MCP servers connected to a workspace (the consent page asks about them).
CREATE TABLE "third_party_servers" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "third_party_servers_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "third_party_servers_workspace_id_idx" ON "third_party_servers"("workspace_id");
ALTER TABLE "third_party_servers" ADD CONSTRAINT "third_party_servers_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Keys the service makes once and shares between instances (token signing, cookie signing, CSRF).
CREATE TABLE "service_secrets" (
    "name" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_secrets_pkey" PRIMARY KEY ("name")
);
