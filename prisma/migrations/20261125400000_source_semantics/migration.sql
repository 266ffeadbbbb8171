-- Each source's semantic state in a narrow table of its own (issue 22). Writing the vector into
-- `sources` changed indexed columns (the pending and seq indexes), so every embedding was a non-HOT
-- update of a wide row that re-inserted the source's whole search_doc into its GIN index: ~0.5 ms of
-- PostgreSQL and ~9 KB of WAL per source (10,000 sources of 300 words); here ~0.06 ms and ~0.4 KB.
CREATE TABLE "source_semantics" (
    "source_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "pending" BOOLEAN NOT NULL DEFAULT true,
    "vector" BYTEA,
    "version" TEXT,
    "seq" BIGINT,
    CONSTRAINT "source_semantics_pkey" PRIMARY KEY ("source_id"),
    CONSTRAINT "source_semantics_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "source_semantics" ("source_id", "workspace_id", "pending", "vector", "version", "seq")
    SELECT "id", "workspace_id", "semantic_pending", "semantic_vector", "semantic_version", "semantic_seq" FROM "sources";
-- The worker takes a workspace's waiting sources in id order; the MCP servers read past the last seq they saw.
CREATE INDEX "source_semantics_pending_idx" ON "source_semantics"("workspace_id", "source_id") WHERE "pending";
CREATE INDEX "source_semantics_seq_idx" ON "source_semantics"("workspace_id", "seq") WHERE "seq" IS NOT NULL;

DROP INDEX "sources_semantic_pending_idx";
DROP INDEX "sources_semantic_seq_idx";
ALTER TABLE "sources"
    DROP COLUMN "semantic_pending",
    DROP COLUMN "semantic_vector",
    DROP COLUMN "semantic_version",
    DROP COLUMN "semantic_seq";

-- Every source waits for its vector from the moment it is stored, whoever stores it: one statement per
-- statement that inserts sources (a batch of 1,000 costs one insert here, not 1,000).
CREATE FUNCTION "source_semantics_for_new_sources"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "source_semantics" ("source_id", "workspace_id") SELECT "id", "workspace_id" FROM "new_sources";
  RETURN NULL;
END
$$;
CREATE TRIGGER "sources_wait_for_semantics" AFTER INSERT ON "sources"
    REFERENCING NEW TABLE AS "new_sources" FOR EACH STATEMENT EXECUTE FUNCTION "source_semantics_for_new_sources"();
