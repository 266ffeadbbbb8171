-- Opportunities by meaning (libs/semantics, libs/evidence): each signal's vector and distinctive words,
-- kept by the worker; each opportunity's sum of member vectors (its average link to a new signal);
-- each product's common component and when it was last clustered in full.

-- embedding: float32 × 100, little endian; embedding_version names the representation, so a change
-- re-embeds. cluster_pending: written or changed, not yet placed in an opportunity (the worker's queue).
ALTER TABLE "signals"
    ADD COLUMN "theme" TEXT,
    ADD COLUMN "embedding" BYTEA,
    ADD COLUMN "embedding_version" TEXT,
    ADD COLUMN "keywords" TEXT[] DEFAULT '{}',
    ADD COLUMN "company" TEXT,
    ADD COLUMN "cluster_pending" BOOLEAN NOT NULL DEFAULT true;
CREATE INDEX "signals_cluster_pending_idx" ON "signals"("workspace_id", "product_id") WHERE "cluster_pending";

ALTER TABLE "opportunities"
    ADD COLUMN "member_sum" BYTEA,
    ADD COLUMN "keywords" TEXT[] DEFAULT '{}',
    ADD COLUMN "central_signal_id" TEXT;

-- A signal is in one opportunity at most.
DROP INDEX "opportunity_signals_signal_id_idx";
CREATE UNIQUE INDEX "opportunity_signals_signal_id_key" ON "opportunity_signals"("signal_id");

CREATE TABLE "product_clusterings" (
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "embedding_version" TEXT NOT NULL,
    "mean" BYTEA NOT NULL,
    "direction" BYTEA NOT NULL,
    "signal_count" INTEGER NOT NULL,
    "changes_since" INTEGER NOT NULL DEFAULT 0,
    "reclustered_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "product_clusterings_pkey" PRIMARY KEY ("workspace_id", "product_id")
);
ALTER TABLE "product_clusterings" ADD CONSTRAINT "product_clusterings_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
