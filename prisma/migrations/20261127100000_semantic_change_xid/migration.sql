-- Issue 41: the MCP servers' index of meaning read changes past the last `seq` it saw, and a sequence
-- value is taken before its transaction commits: a change of a transaction still open (an erasure's
-- slice, a deletion) was passed over by a reader that had already seen a later value, and never read.
-- Each row now records the transaction that last wrote it, and a reader moves its watermark only up to
-- the oldest transaction still running (pg_snapshot_xmin): every row written by an older transaction
-- is committed and visible to it, and no such row can appear afterwards.
ALTER TABLE "source_semantics" ADD COLUMN "change_xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE "source_deletions" ADD COLUMN "change_xid" xid8 NOT NULL DEFAULT pg_current_xact_id();

-- Inserts take the default; every update, whoever writes it, is stamped here.
CREATE FUNCTION "source_semantics_stamp_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."change_xid" := pg_current_xact_id();
  RETURN NEW;
END
$$;
CREATE TRIGGER "source_semantics_change_xid" BEFORE UPDATE ON "source_semantics"
    FOR EACH ROW EXECUTE FUNCTION "source_semantics_stamp_change"();

-- The readers' order: by transaction, then id (the rows of one transaction share its id).
DROP INDEX "source_semantics_seq_idx";
CREATE INDEX "source_semantics_change_idx" ON "source_semantics"("workspace_id", "change_xid", "source_id");
CREATE INDEX "source_deletions_change_idx" ON "source_deletions"("workspace_id", "change_xid", "source_id");
