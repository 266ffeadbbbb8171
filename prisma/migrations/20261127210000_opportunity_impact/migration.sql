-- The impact of an opportunity: the customers behind its evidence (issue 44). Kept by libs/evidence
-- (refreshImpact) with every change of its signals, and after companies or people change (the worker's
-- companies.resolve job). `unique_company_count` now counts a signal's resolved company, else its email domain.
-- The sum of the ARR of the distinct companies its signals resolve to, each counted once.
ALTER TABLE "opportunities" ADD COLUMN "revenue" NUMERIC(20, 2) NOT NULL DEFAULT 0;
-- The distinct segments, plans and stages of those companies (filters).
ALTER TABLE "opportunities" ADD COLUMN "segments" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "opportunities" ADD COLUMN "plans" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "opportunities" ADD COLUMN "stages" TEXT[] DEFAULT ARRAY[]::TEXT[];
-- The nearest renewal date among them on or after the day the impact was computed.
ALTER TABLE "opportunities" ADD COLUMN "nearest_renewal" DATE;
-- When its newest signal was said.
ALTER TABLE "opportunities" ADD COLUMN "newest_evidence_at" TIMESTAMPTZ(3);
-- The splits: companies and ARR per segment and per plan, companies per stage, resolved companies.
ALTER TABLE "opportunities" ADD COLUMN "impact" JSONB NOT NULL DEFAULT '{}';
CREATE INDEX "opportunities_workspace_id_product_id_revenue_idx" ON "opportunities"("workspace_id", "product_id", "revenue" DESC);
-- Opportunities of before: no company is known yet, only when their newest evidence was said.
UPDATE "opportunities" o SET "newest_evidence_at" = x.newest
  FROM (SELECT os.opportunity_id, max(s.created_at) AS newest FROM "opportunity_signals" os JOIN "signals" s ON s.id = os.signal_id GROUP BY os.opportunity_id) x
 WHERE o.id = x.opportunity_id;
