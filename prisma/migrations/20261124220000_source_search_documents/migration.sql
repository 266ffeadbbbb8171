-- find_sources finds its candidates through one document vector per source instead of the segment
-- index (measured at 100,000 sources: a common word under a date filter walked the segment bitmap in
-- table order, i.e. oldest first, through every older match before reaching the filter's sources).
-- On the sources row the filters and the vector sit together: the planner either reads the GIN
-- bitmap (a rare word) or walks (workspace_id, occurred_at) backwards checking the vector (a common
-- word, a date filter) and stops at the candidate cap.
--   search_doc   title (weight A), then the heading and text of every segment; written by the worker
--                with the source (libs/sources insertSources), so it is searchable on commit.
-- The segment vectors stay (which segments of a found source match, for excerpts and positions, read
-- through the segments' primary key); their GIN index and the title's are no longer read: dropped,
-- so ingestion stops paying for them.
ALTER TABLE "sources" ADD COLUMN "search_doc" tsvector;

UPDATE "sources" s
   SET "search_doc" = setweight(to_tsvector('english'::regconfig, s."title"), 'A') || to_tsvector('english'::regconfig, coalesce(d.body, ''))
  FROM (SELECT x."id", (SELECT string_agg(concat_ws(E'\n', g."heading", g."text"), E'\n' ORDER BY g."position")
                          FROM "source_segments" g WHERE g."source_id" = x."id") AS body
          FROM "sources" x) d
 WHERE s."id" = d."id";

CREATE INDEX "sources_search_doc_idx" ON "sources" USING GIN ("search_doc") WITH (gin_pending_list_limit = 512);
DROP INDEX "source_segments_search_text_idx";
DROP INDEX "sources_search_title_idx";
