-- Issue 28 (delete a source or record, retention): the log of deleted sources that every MCP server
-- instance reads with `sources` in semantic_seq order, so its in-memory index drops a deleted id (a
-- deleted row simply disappears); written in the deleting transaction and pruned after a day.
CREATE TABLE "source_deletions" (
    "workspace_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "semantic_seq" BIGINT NOT NULL DEFAULT nextval('source_semantic_seq'),
    "deleted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "source_deletions_pkey" PRIMARY KEY ("workspace_id", "semantic_seq"),
    CONSTRAINT "source_deletions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "source_deletions_deleted_at_idx" ON "source_deletions"("deleted_at");

-- A batch keeps counting what it received and processed (history); records deleted later are counted here.
ALTER TABLE "batches" ADD COLUMN "deleted_count" INTEGER NOT NULL DEFAULT 0;

-- Retention: sources that occurred more than this many days ago are deleted by the worker (NULL: off).
ALTER TABLE "workspaces" ADD COLUMN "retention_days" INTEGER;
ALTER TABLE "workspaces" ADD CONSTRAINT "workspaces_retention_days_check" CHECK ("retention_days" IS NULL OR "retention_days" BETWEEN 1 AND 36500);
