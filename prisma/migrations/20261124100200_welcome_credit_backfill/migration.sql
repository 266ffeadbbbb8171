-- Issue 23 item 3: people who received welcome credits before welcome_credit_recipients existed are
-- recorded too, so their next workspace does not get them again. The owners of every workspace with a
-- `welcome` grant count as its recipients (the creator is its first owner); the earliest grant wins.
INSERT INTO "welcome_credit_recipients" ("email_sha256", "workspace_id", "granted_at")
SELECT DISTINCT ON (encode(sha256(convert_to(lower(u."email"), 'UTF8')), 'hex'))
       encode(sha256(convert_to(lower(u."email"), 'UTF8')), 'hex'), l."workspace_id", l."created_at"
  FROM "credit_ledger" l
  JOIN "memberships" m ON m."workspace_id" = l."workspace_id" AND m."role" = 'owner'
  JOIN "users" u ON u."id" = m."user_id"
 WHERE l."reference" = 'welcome'
 ORDER BY encode(sha256(convert_to(lower(u."email"), 'UTF8')), 'hex'), l."created_at"
ON CONFLICT ("email_sha256") DO NOTHING;
