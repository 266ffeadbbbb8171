-- Files of deleted attachments still to delete from storage (libs/lifecycle): written in the deleting
-- transaction, removed once the file is gone; the worker's hourly sweep deletes what a crash between
-- the commit and the file deletion left. No workspace foreign key: the files outlive any row.
CREATE TABLE "storage_deletions" (
    "key" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "storage_deletions_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "storage_deletions_created_at_idx" ON "storage_deletions"("created_at");
