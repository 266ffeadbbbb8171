-- Issue 27: people review the signals an AI wrote on the account pages. A signal a person moved is
-- pinned (the clustering keeps it where it was put); signals say which key or application wrote
-- them; every change a person makes is recorded with who made it. The recent-signals page reads a
-- workspace's signals newest first, a page at a time (the index below).
ALTER TABLE "signals" ADD COLUMN "pinned" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "written_by_key_id" TEXT,
  ADD COLUMN "written_by_client_id" TEXT;

CREATE INDEX "signals_workspace_id_created_at_id_idx" ON "signals"("workspace_id", "created_at" DESC, "id" DESC);

CREATE TABLE "signal_changes" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "signal_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "by_user_id" TEXT,
    "by_email" TEXT NOT NULL,
    "detail" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "signal_changes_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "signal_changes_workspace_id_signal_id_created_at_idx" ON "signal_changes"("workspace_id", "signal_id", "created_at" DESC);
CREATE INDEX "signal_changes_workspace_id_created_at_idx" ON "signal_changes"("workspace_id", "created_at" DESC);

ALTER TABLE "signal_changes" ADD CONSTRAINT "signal_changes_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
