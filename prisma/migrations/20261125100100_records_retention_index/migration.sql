-- Retention (libs/lifecycle) also deletes processed records that never became a source (their data
-- could not be built into one), by event_at: this index finds them a slice at a time.
CREATE INDEX "records_retention_idx" ON "records"("workspace_id", "event_at") WHERE "processed_at" IS NOT NULL;
