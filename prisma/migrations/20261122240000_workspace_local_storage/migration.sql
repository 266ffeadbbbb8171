-- A workspace that keeps its evidence on its own machines: the MCP tools that read or write stored
-- evidence answer "Tool is not available for this workspace" (spec 7.4).
ALTER TABLE "workspaces" ADD COLUMN "local_data_storage" BOOLEAN NOT NULL DEFAULT false;
