-- The evidence domain (libs/evidence): signal types, signals extracted from sources, and the
-- opportunities clustered from a product's signals.
CREATE TABLE "signal_types" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "built_in" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signal_types_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "signal_types_workspace_id_key_key" ON "signal_types"("workspace_id", "key");
ALTER TABLE "signal_types" ADD CONSTRAINT "signal_types_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Replay safety: the same source, type and content is one signal.
CREATE TABLE "signals" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "source_id" TEXT NOT NULL,
    "type_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "who_said_it" TEXT,
    "participant_id" TEXT,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "signals_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "signals_workspace_id_source_id_type_id_content_hash_key" ON "signals"("workspace_id", "source_id", "type_id", "content_hash");
CREATE INDEX "signals_workspace_id_product_id_created_at_idx" ON "signals"("workspace_id", "product_id", "created_at" DESC);
ALTER TABLE "signals" ADD CONSTRAINT "signals_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "signals" ADD CONSTRAINT "signals_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "signals" ADD CONSTRAINT "signals_type_id_fkey" FOREIGN KEY ("type_id") REFERENCES "signal_types"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "opportunities" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "subtitle" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "evidence_count" INTEGER NOT NULL,
    "unique_company_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "opportunities_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "opportunities_workspace_id_product_id_idx" ON "opportunities"("workspace_id", "product_id");
ALTER TABLE "opportunities" ADD CONSTRAINT "opportunities_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "opportunity_signals" (
    "opportunity_id" TEXT NOT NULL,
    "signal_id" TEXT NOT NULL,

    CONSTRAINT "opportunity_signals_pkey" PRIMARY KEY ("opportunity_id", "signal_id")
);
CREATE INDEX "opportunity_signals_signal_id_idx" ON "opportunity_signals"("signal_id");
ALTER TABLE "opportunity_signals" ADD CONSTRAINT "opportunity_signals_opportunity_id_fkey" FOREIGN KEY ("opportunity_id") REFERENCES "opportunities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "opportunity_signals" ADD CONSTRAINT "opportunity_signals_signal_id_fkey" FOREIGN KEY ("signal_id") REFERENCES "signals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
