-- Third-party MCP servers become usable: a slug that namespaces their tools (unique in the
-- workspace) and an optional header sent to them, its value encrypted by libs/third-party-mcp
-- (AES-256-GCM, "v1.<iv>.<tag>.<ciphertext>"; the key is service_secrets 'third-party-header-key').
ALTER TABLE "third_party_servers" ADD COLUMN "slug" TEXT;
ALTER TABLE "third_party_servers" ADD COLUMN "auth_header_name" TEXT;
ALTER TABLE "third_party_servers" ADD COLUMN "auth_header_value" TEXT;

-- Existing rows: the slug from the name (as the lib makes it), numbered where two would clash.
WITH base AS (
    SELECT "id", "workspace_id", "created_at",
           COALESCE(NULLIF(RTRIM(LEFT(BTRIM(REGEXP_REPLACE(LOWER("name"), '[^a-z0-9]+', '_', 'g'), '_'), 24), '_'), ''), 'server') AS "base_slug"
    FROM "third_party_servers"
), numbered AS (
    SELECT "id", "base_slug",
           ROW_NUMBER() OVER (PARTITION BY "workspace_id", "base_slug" ORDER BY "created_at", "id") AS "n"
    FROM base
)
UPDATE "third_party_servers" t
SET "slug" = CASE WHEN numbered."n" = 1 THEN numbered."base_slug" ELSE RTRIM(LEFT(numbered."base_slug", 18), '_') || '_' || numbered."n" END
FROM numbered
WHERE t."id" = numbered."id";

ALTER TABLE "third_party_servers" ALTER COLUMN "slug" SET NOT NULL;
CREATE UNIQUE INDEX "third_party_servers_workspace_id_slug_key" ON "third_party_servers"("workspace_id", "slug");
