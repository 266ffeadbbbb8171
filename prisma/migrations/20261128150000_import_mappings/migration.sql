-- File import in the browser (issue 45, libs/file-import): mappings saved per workspace, and each import of a
-- file with its progress, so the console can show it while the worker streams the stored file in slices.
CREATE TABLE "import_mappings" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    -- A mapping as libs/file-import's mappingSchema accepts it (the CLI's mapping file).
    "mapping" JSONB NOT NULL,
    "created_by" TEXT,
    "updated_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "import_mappings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "import_mappings_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "import_mappings_workspace_id_name_key" ON "import_mappings"("workspace_id", "name");

CREATE TABLE "file_imports" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    -- Where the uploaded file is kept until the import is done (then deleted).
    "storage_key" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "format" TEXT NOT NULL,
    -- The mapping in use (set on the mapping page; copied, so editing a saved mapping changes no import).
    "mapping" JSONB,
    "product_id" TEXT,
    "project_id" TEXT,
    -- draft (mapping), queued, running, done, failed.
    "status" TEXT NOT NULL DEFAULT 'draft',
    -- The cursor: rows of the file consumed, saved in the transaction that lands the slice they end.
    "rows_read" INTEGER NOT NULL DEFAULT 0,
    "bytes_read" BIGINT NOT NULL DEFAULT 0,
    "stored_count" INTEGER NOT NULL DEFAULT 0,
    "duplicates_count" INTEGER NOT NULL DEFAULT 0,
    "refused_count" INTEGER NOT NULL DEFAULT 0,
    -- The first refused rows, each {"where": {"line"} or {"item"}, "problems": [...]}.
    "refusals" JSONB NOT NULL DEFAULT '[]',
    "last_error" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "file_imports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "file_imports_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "file_imports_status_check" CHECK ("status" IN ('draft', 'queued', 'running', 'done', 'failed'))
);
CREATE INDEX "file_imports_workspace_id_created_at_id_idx" ON "file_imports"("workspace_id", "created_at" DESC, "id" DESC);
