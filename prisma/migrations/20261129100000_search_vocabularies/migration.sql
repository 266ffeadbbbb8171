-- Issue 46: each workspace's own vocabulary for the second stage of find_sources (libs/sources/src/vocabulary.ts),
-- learned by the worker from an even sample of its sources. A new table, never read by the previous release:
-- safe while it still runs.
CREATE TABLE "search_vocabularies" (
    "workspace_id" TEXT NOT NULL,
    "sources" INTEGER NOT NULL,
    "sampled" INTEGER NOT NULL,
    "grown" INTEGER NOT NULL DEFAULT 0,
    -- Raised by each deletion or erasure that empties it: a vocabulary learned meanwhile is not written.
    "generation" INTEGER NOT NULL DEFAULT 0,
    "built_at" TIMESTAMPTZ(3) NOT NULL,
    -- libs/semantics encodeLatentTerms; NULL once a deletion or an erasure emptied it (it holds words of the sources).
    "model" BYTEA,
    CONSTRAINT "search_vocabularies_pkey" PRIMARY KEY ("workspace_id"),
    CONSTRAINT "search_vocabularies_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
