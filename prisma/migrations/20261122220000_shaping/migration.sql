-- libs/shaping: shaping notes (markdown documents about a product moving through the pipeline
-- ideas → prds → dev_plans → build_notes → revisions → ready → done, or outside it when status
-- is NULL) and every state each note has had, one row per version.
CREATE TABLE "shaping_notes" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "subtitle" TEXT,
    "content" TEXT NOT NULL,
    "status" TEXT,
    "tags" TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shaping_notes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "shaping_notes_workspace_id_product_id_updated_at_idx" ON "shaping_notes"("workspace_id", "product_id", "updated_at" DESC);

CREATE TABLE "shaping_note_versions" (
    "note_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "subtitle" TEXT,
    "content" TEXT NOT NULL,
    "status" TEXT,
    "tags" TEXT[],
    "created_by_user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shaping_note_versions_pkey" PRIMARY KEY ("note_id", "version")
);
ALTER TABLE "shaping_note_versions" ADD CONSTRAINT "shaping_note_versions_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "shaping_notes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
