-- Ingestion paid for three vectors of the same words: the document vector (what find_sources matches),
-- the title's and every segment's (generated columns). The last two are read for at most a few
-- hundred titles and a few hundred segments per search: computed there instead. bench:pipeline with
-- all three: 0.51–0.56 of the ingest rate (0.65–0.66 before search); the segments table was as large
-- again with them.
ALTER TABLE "source_segments" DROP COLUMN "search_text";
ALTER TABLE "sources" DROP COLUMN "search_title";
