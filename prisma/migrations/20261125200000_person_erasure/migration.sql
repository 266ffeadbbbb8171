-- Issue 28 item 2: erase a person from a workspace, and keep records about them out afterwards.
-- An erasure request is also the audit row: who asked (a user or an API key) and when, its progress
-- and counts. The person is named only by a salted SHA-256 (`subject_hash`); what the worker needs to
-- find them (email, participant id, the names found for them) is in `subject` while the erasure runs
-- and set to NULL when it ends, so no row keeps it.
CREATE TABLE "erasure_requests" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "subject_kind" TEXT NOT NULL,
    "subject_hash" TEXT NOT NULL,
    "subject" JSONB,
    "status" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "cursor" TEXT NOT NULL DEFAULT '',
    "counts" JSONB NOT NULL DEFAULT '{}',
    "requested_by_user_id" TEXT,
    "requested_by_key_id" TEXT,
    "requested_by" TEXT NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "erasure_requests_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "erasure_requests_workspace_id_created_at_idx" ON "erasure_requests"("workspace_id", "created_at" DESC);

ALTER TABLE "erasure_requests" ADD CONSTRAINT "erasure_requests_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A suppression keeps records naming the person (by email or participant id, the same salted hash)
-- out of the workspace until it is lifted; a lifted one stays as the audit of who lifted it.
CREATE TABLE "suppressions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "value_hash" TEXT NOT NULL,
    "erasure_id" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "lifted_by" TEXT,
    "lifted_at" TIMESTAMPTZ(3),

    CONSTRAINT "suppressions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "suppressions_workspace_id_value_hash_idx" ON "suppressions"("workspace_id", "value_hash");
CREATE UNIQUE INDEX "suppressions_active_key" ON "suppressions"("workspace_id", "kind", "value_hash") WHERE "lifted_at" IS NULL;

ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
