-- Semantic search (issue 22): each source's meaning as a vector, written by the worker after the source
-- is stored (not in the ingestion transaction: embedding must not slow the pipeline), read by the MCP
-- server into its in-memory index. semantic_seq orders writes so every instance picks up new and
-- re-embedded sources by polling past the last one it saw.
CREATE SEQUENCE "source_semantic_seq";
ALTER TABLE "sources"
    ADD COLUMN "semantic_pending" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "semantic_vector" BYTEA,
    ADD COLUMN "semantic_version" TEXT,
    ADD COLUMN "semantic_seq" BIGINT;
CREATE INDEX "sources_semantic_pending_idx" ON "sources"("workspace_id") WHERE "semantic_pending";
CREATE INDEX "sources_semantic_seq_idx" ON "sources"("workspace_id", "semantic_seq") WHERE "semantic_seq" IS NOT NULL;
