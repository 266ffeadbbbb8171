-- Connections of a workspace to a vendor (libs/connectors): where to read, with which credentials, and how far it has read.
CREATE TYPE "connection_status" AS ENUM ('active', 'paused', 'failing');

CREATE TABLE "connections" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    -- The vendor's address (regions, self-hosted instances, tests); fetched through the SSRF-safe fetcher.
    "base_url" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    -- Envelope encryption: the credentials under a data key of their own, the data key wrapped by a key of
    -- CONNECTIONS_KEY (its id in the wrapped value). Never read back by any API or page.
    "credentials_ciphertext" TEXT NOT NULL,
    "credentials_data_key" TEXT NOT NULL,
    -- Bumped when the credentials change: a sync started under older ones does not mark the new ones failing.
    "credentials_version" INTEGER NOT NULL DEFAULT 1,
    "status" "connection_status" NOT NULL DEFAULT 'active',
    -- The connector's own state (its cursor), saved in the transaction that stores the page it follows.
    "cursor" JSONB,
    "sync_interval_seconds" INTEGER NOT NULL DEFAULT 900,
    "last_synced_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "records_count" INTEGER NOT NULL DEFAULT 0,
    "duplicates_count" INTEGER NOT NULL DEFAULT 0,
    "rejected_count" INTEGER NOT NULL DEFAULT 0,
    "companies_count" INTEGER NOT NULL DEFAULT 0,
    "people_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "connections_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "connections_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "connections_workspace_id_created_at_id_idx" ON "connections"("workspace_id", "created_at" DESC, "id" DESC);
CREATE INDEX "connections_status_idx" ON "connections"("status");

-- The batches a connection landed (source 'connection'), so deleting it with its data finds its records.
ALTER TABLE "batches" ADD COLUMN "connection_id" TEXT;
CREATE INDEX "batches_connection_id_idx" ON "batches"("connection_id");
