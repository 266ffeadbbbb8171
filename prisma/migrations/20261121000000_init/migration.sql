-- CreateEnum
CREATE TYPE "member_role" AS ENUM ('owner', 'admin', 'member');
CREATE TYPE "batch_status" AS ENUM ('LANDING', 'LANDED', 'PROCESSING', 'COMPLETE', 'FAILED');
CREATE TYPE "download_status" AS ENUM ('PENDING', 'IN_PROGRESS', 'COMPLETE', 'PARTIAL_FAILURE', 'FAILED');
CREATE TYPE "attachment_status" AS ENUM ('PENDING', 'DOWNLOADING', 'COMPLETE', 'FAILED', 'NOT_DOWNLOADED');
CREATE TYPE "ledger_entry_kind" AS ENUM ('grant', 'charge');
CREATE TYPE "source_status" AS ENUM ('processing', 'ready');
CREATE TYPE "idempotency_state" AS ENUM ('in_flight', 'complete');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "plan_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "memberships" (
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" "member_role" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "memberships_pkey" PRIMARY KEY ("workspace_id","user_id")
);

CREATE TABLE "products" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "products_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "created_by_user_id" TEXT,
    "name" TEXT NOT NULL,
    "display_prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "permissions" TEXT[],
    "default_product_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "plans" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "included_credits" INTEGER NOT NULL,
    "overage_allowed" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "plans_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "credit_ledger" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" "ledger_entry_kind" NOT NULL,
    "amount" INTEGER NOT NULL,
    "overage" INTEGER NOT NULL DEFAULT 0,
    "reference" TEXT NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "credit_ledger_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "api_key_id" TEXT,
    "product_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "format" TEXT,
    "status" "batch_status" NOT NULL,
    "accepted_count" INTEGER NOT NULL,
    "rejected_count" INTEGER NOT NULL,
    "duplicate_count" INTEGER NOT NULL DEFAULT 0,
    "total_error_count" INTEGER NOT NULL,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "processed_count" INTEGER NOT NULL DEFAULT 0,
    "credits_charged" INTEGER NOT NULL DEFAULT 0,
    "attachment_download_total" INTEGER NOT NULL DEFAULT 0,
    "attachment_download_complete" INTEGER NOT NULL DEFAULT 0,
    "attachment_download_failed" INTEGER NOT NULL DEFAULT 0,
    "attachment_download_status" "download_status",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "records" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "batch_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "nature" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "project_ids" TEXT[],
    "event_at" TIMESTAMPTZ(0) NOT NULL,
    "vendor_ids" JSONB NOT NULL,
    "thread_id" TEXT,
    "participants" JSONB,
    "tags" TEXT[],
    "pii" JSONB,
    "data" JSON NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    CONSTRAINT "records_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "attachments" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "batch_id" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "filename" TEXT,
    "declared_size" BIGINT,
    "mime_type" TEXT,
    "sha1" TEXT,
    "md5" TEXT,
    "vendor_url" TEXT,
    "upload_intent_id" TEXT,
    "status" "attachment_status" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "storage_key" TEXT,
    "stored_size" BIGINT,
    "stored_mime_type" TEXT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "idempotency_keys" (
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" "idempotency_state" NOT NULL,
    "response_status" INTEGER,
    "response_body" JSON,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("workspace_id","key")
);

CREATE TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "window_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key","window_start")
);

CREATE TABLE "sources" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "project_ids" TEXT[],
    "record_id" TEXT,
    "type" TEXT NOT NULL,
    "nature" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "participants" JSONB NOT NULL DEFAULT '[]',
    "tags" TEXT[],
    "thread_id" TEXT,
    "external_source" TEXT,
    "external_id" TEXT,
    "status" "source_status" NOT NULL,
    "segment_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "source_segments" (
    "source_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "speaker" TEXT,
    "heading" TEXT,
    "text" TEXT NOT NULL,
    "start_ms" INTEGER,
    CONSTRAINT "source_segments_pkey" PRIMARY KEY ("source_id","position")
);

-- CreateIndex
CREATE INDEX "memberships_user_id_idx" ON "memberships"("user_id");
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");
CREATE INDEX "products_workspace_id_idx" ON "products"("workspace_id");
CREATE INDEX "projects_workspace_id_product_id_idx" ON "projects"("workspace_id", "product_id");
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");
CREATE INDEX "api_keys_workspace_id_idx" ON "api_keys"("workspace_id");
CREATE UNIQUE INDEX "plans_name_key" ON "plans"("name");
CREATE INDEX "credit_ledger_workspace_id_created_at_idx" ON "credit_ledger"("workspace_id", "created_at");
CREATE UNIQUE INDEX "credit_ledger_workspace_id_reference_key" ON "credit_ledger"("workspace_id", "reference");
CREATE INDEX "batches_workspace_id_created_at_id_idx" ON "batches"("workspace_id", "created_at" DESC, "id" DESC);
CREATE INDEX "records_batch_id_position_idx" ON "records"("batch_id", "position");
CREATE UNIQUE INDEX "records_workspace_id_dedup_key_key" ON "records"("workspace_id", "dedup_key");
CREATE INDEX "attachments_batch_id_status_idx" ON "attachments"("batch_id", "status");
CREATE UNIQUE INDEX "attachments_record_id_position_key" ON "attachments"("record_id", "position");
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");
CREATE UNIQUE INDEX "sources_record_id_key" ON "sources"("record_id");
CREATE INDEX "sources_workspace_id_product_id_occurred_at_idx" ON "sources"("workspace_id", "product_id", "occurred_at" DESC);
CREATE UNIQUE INDEX "sources_workspace_id_external_source_external_id_key" ON "sources"("workspace_id", "external_source", "external_id");

-- AddForeignKey
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "products" ADD CONSTRAINT "products_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "projects" ADD CONSTRAINT "projects_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "projects" ADD CONSTRAINT "projects_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_default_product_id_fkey" FOREIGN KEY ("default_product_id") REFERENCES "products"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "batches" ADD CONSTRAINT "batches_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "records" ADD CONSTRAINT "records_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "records" ADD CONSTRAINT "records_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "sources" ADD CONSTRAINT "sources_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "sources" ADD CONSTRAINT "sources_record_id_fkey" FOREIGN KEY ("record_id") REFERENCES "records"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "source_segments" ADD CONSTRAINT "source_segments_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
