-- The opportunities job reads a product's signals a page at a time in id order (embedding, full
-- re-clustering). Without this index each page sorted the whole product: at 100,000 signals reading
-- them took 27 s and embedding them 92 s (bench:opportunities); with it, each page is a range scan.
CREATE INDEX "signals_workspace_id_product_id_id_idx" ON "signals"("workspace_id", "product_id", "id");
