-- Receipt identity, defined once: a claimed job's receipt is (claim_slot,
-- receipt_id), receipt_id = batch_id * 1024 + item - 1 for item 1..1024 of
-- its claim batch (hence at most 1024 jobs per batch). The functions live
-- here, not in sql/functions, because the views (60_views.sql) use them.
-- Each is IMMUTABLE LANGUAGE sql with no subquery, so the planner inlines it:
-- a call costs what the expression costs, and a closure's GiST index still
-- serves `receipts @> awa._receipt_id(...)`.

-- The receipt of item (1-based) of claim batch batch_id.
CREATE FUNCTION awa._receipt_id(p_batch_id bigint, p_item bigint)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_batch_id * 1024 + p_item - 1
$$;

-- The claim batch of a receipt (inverse of awa._receipt_id).
CREATE FUNCTION awa._receipt_batch_id(p_receipt_id bigint)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_receipt_id >> 10
$$;

-- The item (1-based) of a receipt in its batch (inverse of awa._receipt_id).
CREATE FUNCTION awa._receipt_item(p_receipt_id bigint)
RETURNS int
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT (p_receipt_id & 1023)::int + 1
$$;

-- The receipts of the first size items of claim batch batch_id, as a range.
CREATE FUNCTION awa._batch_receipts(p_batch_id bigint, p_size int)
RETURNS int8range
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT int8range(awa._receipt_id(p_batch_id, 1), awa._receipt_id(p_batch_id, p_size + 1))
$$;
