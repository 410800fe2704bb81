-- awa.configure_queue(queue, opts): sets a queue's options and returns them.
-- opts keys: dlq (boolean: failed jobs go to the DLQ instead of ending failed),
-- deadline_seconds (positive integer, or null to remove: attempts running
-- longer are rescued), enqueue_shards (1..64, default 8: lanes per priority
-- that concurrent producers spread over; 1 gives one FIFO order per priority
-- at the cost of producers of the queue taking turns), aging_seconds
-- (positive integer, or null to remove: priority aging, a lane whose oldest
-- job waited that long is claimed as if one priority higher, one more per
-- further interval, up to 1; awa.claim_ready_runtime; kept in
-- awa.queue_options, not in the returned awa.queue_meta row), rate_limit (an
-- object {"per_second": number in (0, 1000000], "burst": integer 1..1000000,
-- default ceil(per_second)}, or null to remove: claims start at most burst +
-- per_second * T jobs in any T seconds; a new or changed limit fills the
-- bucket, the same limit set again keeps it),
-- max_depth (integer 1..1000000000, or null to remove: an insert of available
-- jobs that would take the queue's available depth above it fails with AW060;
-- kept in awa.queue_options, reaches producing sessions within 5 seconds as
-- enqueue_shards does), concurrency (an object {"key": "args.<path>" or
-- "metadata.<path>" (names of [A-Za-z0-9_-], up to 8 levels), "limit":
-- integer 1..100000, "limits": {"<key value>": integer 1..100000, ...}
-- optional per-key overrides, keys of at most 200 characters}, or null to
-- remove: each job due now goes to a lane of its key, and a claim starts a key's jobs only while the weights of
-- its open attempts stay within its limit; reaches producers within 5 s).
-- docs/storage.md, "Flow control". Keys not given keep their value. A new
-- enqueue_shards reaches a producing session within 5 seconds (sessions
-- cache a queue's lanes); raising it lets producers add
-- lanes up to it as they need them, lowering it keeps the old lanes, which
-- claimers still drain.
-- Errors: AW002 bad queue name; AW004 unknown key; AW005 wrong type;
-- AW006 deadline_seconds, enqueue_shards, aging_seconds, rate_limit
-- per_second or burst, max_depth, or a concurrency limit out of range, a
-- limits key over 200 characters (AW004
-- an unknown rate_limit or concurrency key, AW005 a rate_limit or
-- concurrency that is not an object or null, a concurrency key path that is
-- not args.<path> or metadata.<path>, limits not an object of integers).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.configure_queue(p_queue text, p_opts jsonb)
RETURNS SETOF awa.queue_meta
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key  text;
    v_val  jsonb;
    v_meta awa.queue_meta;
    v_aging interval;
    v_aging_set boolean := false;
    v_opt  awa.queue_options;
    v_opt_set boolean := false;
    v_rate_set boolean := false;
    v_rk   text;
    v_rv   jsonb;
    v_burst numeric;
    v_prev_rate  float8;
    v_prev_burst int;
BEGIN
    IF NOT awa._queue_name_ok(p_queue) THEN
        RAISE EXCEPTION 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got %',
            coalesce(quote_literal(p_queue), 'null') USING ERRCODE = 'AW002';
    END IF;
    IF p_opts IS NULL OR jsonb_typeof(p_opts) <> 'object' THEN
        RAISE EXCEPTION 'awa: opts must be a JSON object, got %', coalesce(left(p_opts::text, 100), 'null')
            USING ERRCODE = 'AW005';
    END IF;

    SELECT * INTO v_meta FROM awa.queue_meta WHERE queue = p_queue FOR UPDATE;
    IF NOT FOUND THEN
        v_meta := ROW(p_queue, false, NULL, 8, now())::awa.queue_meta;
    END IF;

    SELECT * INTO v_opt FROM awa.queue_options WHERE queue = p_queue FOR UPDATE;
    IF NOT FOUND THEN
        v_opt := ROW(p_queue, NULL, now(), NULL, NULL, NULL, NULL, NULL, NULL, false)::awa.queue_options;
    END IF;
    v_prev_rate := v_opt.rate_per_second;
    v_prev_burst := v_opt.rate_burst;

    FOR v_key, v_val IN SELECT key, value FROM jsonb_each(p_opts) LOOP
        CASE v_key
        WHEN 'dlq' THEN
            IF jsonb_typeof(v_val) <> 'boolean' THEN
                RAISE EXCEPTION 'awa: opts.dlq must be a boolean, got %', v_val USING ERRCODE = 'AW005';
            END IF;
            v_meta.dlq_enabled := v_val::boolean;
        WHEN 'deadline_seconds' THEN
            IF jsonb_typeof(v_val) = 'null' THEN
                v_meta.deadline := NULL;
            ELSIF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.deadline_seconds must be an integer or null, got %', v_val
                    USING ERRCODE = 'AW005';
            ELSE
                PERFORM awa._require_between('opts.deadline_seconds', v_val::numeric, 1, 31536000, 'AW006');
                v_meta.deadline := make_interval(secs => v_val::numeric);
            END IF;
        WHEN 'enqueue_shards' THEN
            IF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.enqueue_shards must be an integer, got %', v_val
                    USING ERRCODE = 'AW005';
            END IF;
            PERFORM awa._require_between('opts.enqueue_shards', v_val::numeric, 1, 64, 'AW006');
            v_meta.enqueue_shards := v_val::int;
        WHEN 'aging_seconds' THEN
            IF jsonb_typeof(v_val) = 'null' THEN
                v_aging_set := true;
                v_aging := NULL;
            ELSIF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.aging_seconds must be an integer or null, got %', v_val
                    USING ERRCODE = 'AW005';
            ELSE
                PERFORM awa._require_between('opts.aging_seconds', v_val::numeric, 1, 31536000, 'AW006');
                v_aging_set := true;
                v_aging := make_interval(secs => v_val::numeric);
            END IF;
        WHEN 'rate_limit' THEN
            v_opt_set := true;
            v_rate_set := true;
            v_opt.rate_per_second := NULL;
            v_opt.rate_burst := NULL;
            IF jsonb_typeof(v_val) = 'object' THEN
                FOR v_rk, v_rv IN SELECT key, value FROM jsonb_each(v_val) LOOP
                    IF v_rk NOT IN ('per_second', 'burst') THEN
                        RAISE EXCEPTION 'awa: unknown queue option %', quote_literal('rate_limit.' || v_rk)
                            USING ERRCODE = 'AW004', HINT = 'rate_limit keys: per_second, burst';
                    END IF;
                    IF jsonb_typeof(v_rv) <> 'number' OR (v_rk = 'burst' AND v_rv::numeric <> trunc(v_rv::numeric)) THEN
                        RAISE EXCEPTION 'awa: opts.rate_limit.% must be %, got %', v_rk,
                            CASE v_rk WHEN 'burst' THEN 'an integer' ELSE 'a number' END, v_rv USING ERRCODE = 'AW005';
                    END IF;
                END LOOP;
                IF NOT v_val ? 'per_second' THEN
                    RAISE EXCEPTION 'awa: opts.rate_limit needs per_second, got %', v_val USING ERRCODE = 'AW005';
                END IF;
                IF (v_val ->> 'per_second')::numeric NOT BETWEEN 0.000001 AND 1000000 THEN
                    RAISE EXCEPTION 'awa: opts.rate_limit.per_second must be above 0 and at most 1000000, got %',
                        v_val -> 'per_second' USING ERRCODE = 'AW006';
                END IF;
                v_opt.rate_per_second := (v_val ->> 'per_second')::float8;
                v_burst := coalesce((v_val ->> 'burst')::numeric, ceil((v_val ->> 'per_second')::numeric));
                PERFORM awa._require_between('opts.rate_limit.burst', v_burst, 1, 1000000, 'AW006');
                v_opt.rate_burst := v_burst::int;
            ELSIF jsonb_typeof(v_val) <> 'null' THEN
                RAISE EXCEPTION 'awa: opts.rate_limit must be an object or null, got %', v_val USING ERRCODE = 'AW005';
            END IF;
        WHEN 'max_depth' THEN
            v_opt_set := true;
            IF jsonb_typeof(v_val) = 'null' THEN
                v_opt.max_depth := NULL;
            ELSIF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.max_depth must be an integer or null, got %', v_val USING ERRCODE = 'AW005';
            ELSE
                PERFORM awa._require_between('opts.max_depth', v_val::numeric, 1, 1000000000, 'AW006');
                v_opt.max_depth := v_val::int;
            END IF;
        WHEN 'concurrency' THEN
            v_opt_set := true;
            v_opt.concurrency_key := NULL;
            v_opt.concurrency_limit := NULL;
            v_opt.concurrency_limits := NULL;
            IF jsonb_typeof(v_val) = 'object' THEN
                FOR v_rk, v_rv IN SELECT key, value FROM jsonb_each(v_val) LOOP
                    CASE v_rk
                    WHEN 'key' THEN
                        IF jsonb_typeof(v_rv) <> 'string'
                           OR NOT (v_rv #>> '{}') ~ '^(args|metadata)(\.[A-Za-z0-9_-]{1,64}){1,8}$' THEN
                            RAISE EXCEPTION 'awa: opts.concurrency.key must be "args.<path>" or "metadata.<path>", got %', v_rv
                                USING ERRCODE = 'AW005';
                        END IF;
                        v_opt.concurrency_key := v_rv #>> '{}';
                    WHEN 'limit' THEN
                        IF jsonb_typeof(v_rv) <> 'number' OR v_rv::numeric <> trunc(v_rv::numeric) THEN
                            RAISE EXCEPTION 'awa: opts.concurrency.limit must be an integer, got %', v_rv USING ERRCODE = 'AW005';
                        END IF;
                        PERFORM awa._require_between('opts.concurrency.limit', v_rv::numeric, 1, 100000, 'AW006');
                        v_opt.concurrency_limit := v_rv::int;
                    WHEN 'limits' THEN
                        IF jsonb_typeof(v_rv) <> 'object' OR EXISTS (
                               SELECT 1 FROM jsonb_each(v_rv) AS e
                               WHERE jsonb_typeof(e.value) <> 'number' OR e.value::numeric <> trunc(e.value::numeric)) THEN
                            RAISE EXCEPTION 'awa: opts.concurrency.limits must be an object of integers, got %', left(v_rv::text, 100)
                                USING ERRCODE = 'AW005';
                        END IF;
                        PERFORM awa._require_between('opts.concurrency.limits.' || e.key, e.value::numeric, 1, 100000, 'AW006')
                        FROM jsonb_each(v_rv) AS e;
                        -- A job's key is cut at 200 characters (awa._job_key):
                        -- an override for a longer one would never apply.
                        IF EXISTS (SELECT 1 FROM jsonb_object_keys(v_rv) AS k WHERE length(k) > 200) THEN
                            RAISE EXCEPTION 'awa: opts.concurrency.limits keys must be at most 200 characters (a job''s key is cut there), got %',
                                left((SELECT k FROM jsonb_object_keys(v_rv) AS k WHERE length(k) > 200 LIMIT 1), 100) || '...'
                                USING ERRCODE = 'AW006';
                        END IF;
                        v_opt.concurrency_limits := v_rv;
                    ELSE
                        RAISE EXCEPTION 'awa: unknown queue option %', quote_literal('concurrency.' || v_rk)
                            USING ERRCODE = 'AW004', HINT = 'concurrency keys: key, limit, limits';
                    END CASE;
                END LOOP;
                IF v_opt.concurrency_key IS NULL OR v_opt.concurrency_limit IS NULL THEN
                    RAISE EXCEPTION 'awa: opts.concurrency needs key and limit, got %', v_val USING ERRCODE = 'AW005';
                END IF;
                v_opt.keyed := true;
            ELSIF jsonb_typeof(v_val) <> 'null' THEN
                RAISE EXCEPTION 'awa: opts.concurrency must be an object or null, got %', v_val USING ERRCODE = 'AW005';
            END IF;
        ELSE
            RAISE EXCEPTION 'awa: unknown queue option %', quote_literal(v_key)
                USING ERRCODE = 'AW004',
                      HINT = 'known options: dlq, deadline_seconds, enqueue_shards, aging_seconds, rate_limit, max_depth, concurrency';
        END CASE;
    END LOOP;

    IF v_aging_set THEN
        v_opt.aging := v_aging;
    END IF;
    IF v_aging_set OR v_opt_set THEN
        INSERT INTO awa.queue_options AS o (queue, aging, updated_at, rate_per_second, rate_burst, max_depth,
                                            concurrency_key, concurrency_limit, concurrency_limits, keyed)
        VALUES (p_queue, v_opt.aging, now(), v_opt.rate_per_second, v_opt.rate_burst, v_opt.max_depth,
                v_opt.concurrency_key, v_opt.concurrency_limit, v_opt.concurrency_limits, v_opt.keyed)
        ON CONFLICT (queue) DO UPDATE
            SET aging = excluded.aging, updated_at = excluded.updated_at, rate_per_second = excluded.rate_per_second,
                rate_burst = excluded.rate_burst, max_depth = excluded.max_depth,
                concurrency_key = excluded.concurrency_key, concurrency_limit = excluded.concurrency_limit,
                concurrency_limits = excluded.concurrency_limits, keyed = excluded.keyed;
    END IF;
    -- A new or changed rate limit starts with a full bucket; the same limit
    -- set again keeps its bucket (a deploy that declares its queues at every
    -- start must not grant a burst each time); none, no bucket.
    IF v_rate_set THEN
        IF v_opt.rate_per_second IS NULL THEN
            DELETE FROM awa.queue_rate_buckets WHERE queue = p_queue;
        ELSE
            INSERT INTO awa.queue_rate_buckets AS b (queue, tokens, refreshed_at)
            VALUES (p_queue, v_opt.rate_burst, now())
            ON CONFLICT (queue) DO UPDATE SET tokens = excluded.tokens, refreshed_at = excluded.refreshed_at
            WHERE (v_prev_rate, v_prev_burst) IS DISTINCT FROM (v_opt.rate_per_second, v_opt.rate_burst);
        END IF;
    END IF;

    RETURN QUERY
    INSERT INTO awa.queue_meta AS m (queue, dlq_enabled, deadline, enqueue_shards, updated_at)
    VALUES (p_queue, v_meta.dlq_enabled, v_meta.deadline, v_meta.enqueue_shards, now())
    ON CONFLICT (queue) DO UPDATE
        SET dlq_enabled = excluded.dlq_enabled, deadline = excluded.deadline,
            enqueue_shards = excluded.enqueue_shards, updated_at = excluded.updated_at
    RETURNING m.*;
END;
$$;
