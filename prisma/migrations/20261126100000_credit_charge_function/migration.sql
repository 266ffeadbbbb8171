-- A batch of tool-call charges in one statement (issue 26): what `chargeWhileCovered` does in five
-- (BEGIN, the workspace's credit lock, its balance, the insert, COMMIT), for the usual case where no
-- reference is in the ledger yet. A VOLATILE plpgsql function takes a fresh snapshot per statement,
-- so the balance it reads after the lock is the committed one, as in the five-statement path.
-- `p_items` is a JSON array in arrival order of {id, amount, reference, description, api_key_id,
-- oauth_client_id, tool}; items are charged while the workspace is not paused (balance above zero,
-- or a plan that allows overage), each one's overage being what the running balance did not cover.
-- Answers the references charged. When a reference is already in the ledger (a retried call) it
-- raises L0409 and, the statement being its own transaction, nothing of it stays: the caller decides
-- with the ledger in hand.
CREATE FUNCTION "credit_charge_while_covered"(p_workspace_id TEXT, p_items JSON) RETURNS TEXT[]
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_balance INTEGER;
  v_plan_id TEXT;
  v_overage_allowed BOOLEAN;
  v_covered INTEGER;
  v_charged TEXT[];
BEGIN
  PERFORM pg_advisory_xact_lock(72707101, hashtext(p_workspace_id));
  SELECT w.credit_balance, w.plan_id, COALESCE(p.overage_allowed, false)
    INTO v_balance, v_plan_id, v_overage_allowed
    FROM workspaces w LEFT JOIN plans p ON p.id = w.plan_id
   WHERE w.id = p_workspace_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'workspace % does not exist', p_workspace_id USING ERRCODE = 'P0002';
  END IF;
  WITH items AS (
         SELECT e.ord, e.item->>'id' AS id, (e.item->>'amount')::int AS amount, e.item->>'reference' AS reference,
                e.item->>'description' AS description, e.item->>'api_key_id' AS api_key_id,
                e.item->>'oauth_client_id' AS oauth_client_id, e.item->>'tool' AS tool
           FROM json_array_elements(p_items) WITH ORDINALITY AS e(item, ord)),
       running AS (
         SELECT items.*, v_balance - COALESCE(sum(amount) OVER (ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
           FROM items),
       covered AS (
         SELECT * FROM running WHERE before > 0 OR (v_plan_id IS NOT NULL AND v_overage_allowed)),
       entries AS (
         INSERT INTO credit_ledger (id, workspace_id, kind, amount, overage, reference, description, api_key_id, oauth_client_id, tool)
         SELECT id, p_workspace_id, 'charge', -amount, amount - LEAST(amount, GREATEST(before, 0)), reference, description,
                api_key_id, oauth_client_id, tool
           FROM covered ORDER BY ord
         ON CONFLICT (workspace_id, reference) DO NOTHING
         RETURNING reference, amount),
       kept AS (
         UPDATE workspaces SET credit_balance = credit_balance + (SELECT COALESCE(sum(amount), 0) FROM entries) WHERE id = p_workspace_id)
  SELECT (SELECT count(*) FROM covered), (SELECT COALESCE(array_agg(reference), '{}') FROM entries)
    INTO v_covered, v_charged;
  IF cardinality(v_charged) <> v_covered THEN
    RAISE EXCEPTION 'a charge reference of workspace % is already in the ledger', p_workspace_id USING ERRCODE = 'L0409';
  END IF;
  RETURN v_charged;
END
$$;
