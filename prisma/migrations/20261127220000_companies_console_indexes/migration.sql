-- The console's Companies page (issue 44): a page of a workspace's companies biggest ARR first is read
-- from this index (the companies without an ARR after them, in id order from the same index), not by
-- sorting every company of the workspace.
CREATE INDEX "companies_workspace_id_arr_id_idx" ON "companies"("workspace_id", "arr" DESC, "id" DESC);
-- The evidence of each company of a workspace (its signals counted, the page sorted by them) read from
-- the index alone, without visiting the workspace's other signals.
CREATE INDEX "signals_workspace_id_company_id_idx" ON "signals"("workspace_id", "company_id");
