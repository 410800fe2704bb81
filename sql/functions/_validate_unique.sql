-- awa._validate_unique(unique): checks an insert's opts.unique, an object of
--   key       string of 1 to 1000 characters: the key's identity instead of
--             the job's kind
--   by_args   true (the whole args) or an array of 1 to 100 arg names (only
--             those; a missing one counts as absent)
--   by_queue  boolean: the queue is part of the key
--   by_period integer 1..31536000 seconds: the key holds for the period
--             bucket of the job's run_at (floor(epoch / by_period))
--   states    array of job states that hold the key; it must hold every
--             non-terminal state (scheduled, available, running, retryable,
--             waiting_external) and may add completed, cancelled, failed.
--             Default: the non-terminal states.
-- Raises AW004 for an unknown key, AW005 for a value of the wrong type or a
-- states array that misses a non-terminal state or names an unknown one,
-- AW006 for a by_period or key length out of range.
-- Pure. Called by awa._validate_job.
CREATE FUNCTION awa._validate_unique(p_unique jsonb)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
AS $$
DECLARE
    v_key text;
    v_val jsonb;
BEGIN
    IF jsonb_typeof(p_unique) <> 'object' THEN
        RAISE EXCEPTION 'awa: opts.unique must be a JSON object, got %', left(p_unique::text, 100)
            USING ERRCODE = 'AW005';
    END IF;
    FOR v_key, v_val IN SELECT key, value FROM jsonb_each(p_unique) LOOP
        CASE v_key
        WHEN 'key' THEN
            IF jsonb_typeof(v_val) <> 'string' THEN
                RAISE EXCEPTION 'awa: opts.unique.key must be a string, got %', left(v_val::text, 100)
                    USING ERRCODE = 'AW005';
            END IF;
            IF length(v_val #>> '{}') NOT BETWEEN 1 AND 1000 THEN
                RAISE EXCEPTION 'awa: opts.unique.key must be 1 to 1000 characters, got %', length(v_val #>> '{}')
                    USING ERRCODE = 'AW006';
            END IF;
        WHEN 'by_args' THEN
            IF NOT (jsonb_typeof(v_val) = 'boolean'
                    OR (jsonb_typeof(v_val) = 'array' AND jsonb_array_length(v_val) BETWEEN 1 AND 100
                        AND NOT jsonb_path_exists(v_val, '$[*] ? (@.type() != "string" || @ == "")'))) THEN
                RAISE EXCEPTION 'awa: opts.unique.by_args must be a boolean or an array of 1 to 100 arg names, got %',
                    left(v_val::text, 100) USING ERRCODE = 'AW005';
            END IF;
        WHEN 'by_queue' THEN
            IF jsonb_typeof(v_val) <> 'boolean' THEN
                RAISE EXCEPTION 'awa: opts.unique.by_queue must be a boolean, got %', left(v_val::text, 100)
                    USING ERRCODE = 'AW005';
            END IF;
        WHEN 'by_period' THEN
            IF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.unique.by_period must be an integer of seconds, got %', left(v_val::text, 100)
                    USING ERRCODE = 'AW005';
            END IF;
            IF v_val::numeric NOT BETWEEN 1 AND 31536000 THEN
                RAISE EXCEPTION 'awa: opts.unique.by_period must be between 1 and 31536000, got %', v_val
                    USING ERRCODE = 'AW006';
            END IF;
        WHEN 'states' THEN
            IF jsonb_typeof(v_val) <> 'array'
               OR jsonb_path_exists(v_val, '$[*] ? (@.type() != "string")')
               OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(v_val) AS s (name)
                          WHERE s.name NOT IN ('scheduled', 'available', 'running', 'retryable', 'waiting_external',
                                               'completed', 'cancelled', 'failed'))
               OR EXISTS (SELECT 1 FROM unnest(ARRAY['scheduled', 'available', 'running', 'retryable', 'waiting_external']) AS r (name)
                          WHERE NOT v_val ? r.name) THEN
                RAISE EXCEPTION 'awa: opts.unique.states must list job states including every non-terminal one (scheduled, available, running, retryable, waiting_external), got %',
                    left(v_val::text, 200) USING ERRCODE = 'AW005';
            END IF;
        ELSE
            RAISE EXCEPTION 'awa: unknown option %', quote_literal('unique.' || v_key)
                USING ERRCODE = 'AW004',
                      HINT = 'known unique options: key, by_args, by_queue, by_period, states';
        END CASE;
    END LOOP;
END;
$$;
