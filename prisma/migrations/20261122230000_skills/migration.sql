-- libs/skills: a workspace's own skills (methodology guides for AI assistants). A workspace skill
-- whose name equals a built-in one overrides it for that workspace.
CREATE TABLE "workspace_skills" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_skills_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "workspace_skills_workspace_id_name_key" ON "workspace_skills"("workspace_id", "name");
