-- Indexed lexical search of sources (issue 22): find_sources no longer computes to_tsvector over every
-- segment of the workspace, nor scans titles with ILIKE. Both vectors are generated columns, so a
-- source is searchable as soon as the worker's insert commits and no code path can forget them.
--   sources.search_title          the title, weight A (a title match ranks above a body match)
--   source_segments.search_text   the segment's heading (weight B) followed by its text (weight D)
-- 'english' is spelled out: the two-argument to_tsvector is immutable, as a generated column needs.
ALTER TABLE "sources"
    ADD COLUMN "search_title" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, "title"), 'A')) STORED;
ALTER TABLE "source_segments"
    ADD COLUMN "search_text" tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, coalesce("heading", '')), 'B') || to_tsvector('english'::regconfig, "text")
    ) STORED;

CREATE INDEX "sources_search_title_idx" ON "sources" USING GIN ("search_title");
CREATE INDEX "source_segments_search_text_idx" ON "source_segments" USING GIN ("search_text");

-- Newest-first listing of a whole workspace (no product filter), and the date order of `sort: newest`,
-- read from an index instead of sorting every source of the workspace.
CREATE INDEX "sources_workspace_id_occurred_at_id_idx" ON "sources"("workspace_id", "occurred_at" DESC, "id" DESC);
