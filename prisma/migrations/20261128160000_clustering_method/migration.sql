-- Issue 46: the method a product was last clustered with (libs/evidence CLUSTERING_METHOD). A product
-- clustered by an earlier method ('' for all before this column) is re-clustered in full once, by the
-- worker's backfill at start, so an upgrade regroups it without waiting for new evidence. Added, never
-- read by the previous release: safe while it still runs.
ALTER TABLE "product_clusterings" ADD COLUMN "clustering_method" TEXT NOT NULL DEFAULT '';
