-- Rate-limit counters are counted on every request and worth nothing after a crash (a window restarts):
-- unlogged, their updates write no WAL and their commits do not wait for a disk flush.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
