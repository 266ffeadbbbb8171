-- Every search reads the GIN index's whole pending list (rows inserted since its last merge), and the
-- worker keeps inserting segments: a 4 MB list (the server default) costs each query ~500 pages.
-- 512 kB keeps that read small while inserts still go in batches.
ALTER INDEX "source_segments_search_text_idx" SET (gin_pending_list_limit = 512);
ALTER INDEX "sources_search_title_idx" SET (gin_pending_list_limit = 512);
