-- Companies and people of a workspace, as the team's CRM knows them: who the evidence comes from and
-- what they are worth. Keyed by the team's own id (`external_id`), so an import upserts.
CREATE TABLE "companies" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    -- Email domains that identify it, lower case; a domain names one company of a workspace (company_domains).
    "domains" TEXT[] DEFAULT ARRAY[]::TEXT[],
    -- Annual recurring revenue in the workspace's currency.
    "arr" NUMERIC(20, 2),
    "plan" TEXT,
    "segment" TEXT,
    -- trial, customer, churned… as the team names them.
    "stage" TEXT,
    "renewal_date" DATE,
    -- Free attributes: string, number or boolean values.
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "companies_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "companies_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "companies_workspace_id_external_id_key" ON "companies"("workspace_id", "external_id");
CREATE INDEX "companies_workspace_id_created_at_id_idx" ON "companies"("workspace_id", "created_at" DESC, "id" DESC);

-- Which company an email domain identifies: one per domain in a workspace.
CREATE TABLE "company_domains" (
    "workspace_id" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    CONSTRAINT "company_domains_pkey" PRIMARY KEY ("workspace_id", "domain"),
    CONSTRAINT "company_domains_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "company_domains_company_id_idx" ON "company_domains"("company_id");

CREATE TABLE "people" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    -- Lower case; matched against a record participant's email or id.
    "email" TEXT,
    "name" TEXT,
    -- The company the team says the person belongs to: wins over the email's domain.
    "company_id" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "people_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "people_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "people_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "people_workspace_id_external_id_key" ON "people"("workspace_id", "external_id");
CREATE UNIQUE INDEX "people_workspace_id_email_key" ON "people"("workspace_id", "email");
CREATE INDEX "people_company_id_idx" ON "people"("company_id");
CREATE INDEX "people_workspace_id_created_at_id_idx" ON "people"("workspace_id", "created_at" DESC, "id" DESC);

-- The company a signal's speaker resolves to (a person's company, else the domain's); null when none is
-- known, and `company` keeps the domain.
ALTER TABLE "signals" ADD COLUMN "company_id" TEXT;
ALTER TABLE "signals" ADD CONSTRAINT "signals_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "signals_company_id_idx" ON "signals"("company_id");
