-- awa._validate_job(kind, args, opts, now): checks one job request and returns
-- its body (awa._build_job_body, which applies the defaults; job_id NULL).
-- Raises (SQLSTATEs in docs/errors.md):
--   AW001 kind null, empty or longer than 255 characters
--   AW002 queue not a string, empty, longer than 50 characters or outside [A-Za-z0-9_.:-]
--   AW003 args null or not a JSON object
--   AW004 an unknown key in opts
--   AW005 opts not an object, or a value of the wrong type (priority, max_attempts,
--         run_at, metadata, tags)
--   AW006 priority outside 1..4, max_attempts outside 1..1000, weight outside 1..100000
-- opts.weight (an integer, default 1: the slots the job takes of its
-- concurrency key's limit and of a Go worker's MaxWorkers) is kept in the
-- job's metadata as flow_weight (awa._job_weight), a key reserved for it.
--   AW007 more than 20 tags, or a tag that is empty or longer than 100 characters
--   and those of awa._validate_unique for opts.unique
-- Pure: reads and writes nothing. Called by awa.insert_jobs.
CREATE FUNCTION awa._validate_job(p_kind text, p_args jsonb, p_opts jsonb, p_now timestamptz)
RETURNS awa._job_body
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_key  text;
    v_val  jsonb;
    v_tag  jsonb;
    v_num  numeric;
    v_at   timestamptz;
    v_body awa._job_body;
    v_weight int;
BEGIN
    IF p_kind IS NULL OR length(p_kind) = 0 OR length(p_kind) > 255 THEN
        RAISE EXCEPTION 'awa: kind must be 1 to 255 characters, got %', coalesce(quote_literal(p_kind), 'null')
            USING ERRCODE = 'AW001';
    END IF;
    IF p_args IS NULL OR jsonb_typeof(p_args) <> 'object' THEN
        RAISE EXCEPTION 'awa: args must be a JSON object, got %', coalesce(left(p_args::text, 100), 'null')
            USING ERRCODE = 'AW003';
    END IF;
    IF p_opts IS NOT NULL AND jsonb_typeof(p_opts) <> 'object' THEN
        RAISE EXCEPTION 'awa: opts must be a JSON object, got %', left(p_opts::text, 100)
            USING ERRCODE = 'AW005';
    END IF;

    FOR v_key, v_val IN SELECT key, value FROM jsonb_each(coalesce(p_opts, '{}'::jsonb)) LOOP
        CASE v_key
        WHEN 'queue' THEN
            IF jsonb_typeof(v_val) <> 'string' THEN
                RAISE EXCEPTION 'awa: opts.queue must be a string, got %', v_val USING ERRCODE = 'AW002';
            END IF;
            IF NOT awa._queue_name_ok(v_val #>> '{}') THEN
                RAISE EXCEPTION 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got %',
                    quote_literal(v_val #>> '{}') USING ERRCODE = 'AW002';
            END IF;
        WHEN 'priority', 'max_attempts' THEN
            IF jsonb_typeof(v_val) <> 'number' THEN
                RAISE EXCEPTION 'awa: opts.% must be an integer, got %', v_key, v_val USING ERRCODE = 'AW005';
            END IF;
            v_num := v_val::numeric;
            IF v_num <> trunc(v_num) THEN
                RAISE EXCEPTION 'awa: opts.% must be an integer, got %', v_key, v_val USING ERRCODE = 'AW005';
            END IF;
            -- Inline, not awa._require_between (same message): no extra call per job.
            IF v_key = 'priority' AND v_num NOT BETWEEN 1 AND 4 THEN
                RAISE EXCEPTION 'awa: opts.priority must be between 1 and 4, got %', v_val USING ERRCODE = 'AW006';
            ELSIF v_key = 'max_attempts' AND v_num NOT BETWEEN 1 AND 1000 THEN
                RAISE EXCEPTION 'awa: opts.max_attempts must be between 1 and 1000, got %', v_val USING ERRCODE = 'AW006';
            END IF;
        WHEN 'run_at' THEN
            IF jsonb_typeof(v_val) = 'null' THEN
                CONTINUE;
            END IF;
            IF jsonb_typeof(v_val) <> 'string'
               OR (v_val #>> '{}') !~ '^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|[+-]\d{2}(:?\d{2})?)$' THEN
                RAISE EXCEPTION 'awa: opts.run_at must be an RFC 3339 timestamp with a time zone, got %', v_val
                    USING ERRCODE = 'AW005';
            END IF;
            BEGIN
                v_at := (v_val #>> '{}')::timestamptz;
            EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
                RAISE EXCEPTION 'awa: opts.run_at is not a valid timestamp, got %', v_val USING ERRCODE = 'AW005';
            END;
        WHEN 'tags' THEN
            IF jsonb_typeof(v_val) <> 'array' THEN
                RAISE EXCEPTION 'awa: opts.tags must be an array of strings, got %', v_val USING ERRCODE = 'AW005';
            END IF;
            IF jsonb_array_length(v_val) > 20 THEN
                RAISE EXCEPTION 'awa: opts.tags holds % tags, at most 20 are allowed', jsonb_array_length(v_val)
                    USING ERRCODE = 'AW007';
            END IF;
            FOR v_tag IN SELECT value FROM jsonb_array_elements(v_val) LOOP
                IF jsonb_typeof(v_tag) <> 'string' THEN
                    RAISE EXCEPTION 'awa: opts.tags must be an array of strings, got element %', v_tag
                        USING ERRCODE = 'AW005';
                END IF;
                IF length(v_tag #>> '{}') NOT BETWEEN 1 AND 100 THEN
                    RAISE EXCEPTION 'awa: each tag must be 1 to 100 characters, got %', v_tag USING ERRCODE = 'AW007';
                END IF;
            END LOOP;
        WHEN 'unique' THEN
            PERFORM awa._validate_unique(v_val);
        WHEN 'weight' THEN
            IF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.weight must be an integer, got %', left(v_val::text, 100) USING ERRCODE = 'AW005';
            END IF;
            IF v_val::numeric NOT BETWEEN 1 AND 100000 THEN
                RAISE EXCEPTION 'awa: opts.weight must be between 1 and 100000, got %', v_val USING ERRCODE = 'AW006';
            END IF;
            v_weight := v_val::int;
        WHEN 'metadata' THEN
            IF jsonb_typeof(v_val) <> 'object' THEN
                RAISE EXCEPTION 'awa: opts.metadata must be a JSON object, got %', left(v_val::text, 100)
                    USING ERRCODE = 'AW005';
            END IF;
        ELSE
            RAISE EXCEPTION 'awa: unknown option %', quote_literal(v_key)
                USING ERRCODE = 'AW004',
                      HINT = 'known options: queue, priority, run_at, max_attempts, tags, metadata, unique, weight';
        END CASE;
    END LOOP;

    v_body := awa._build_job_body(NULL, p_kind, p_args, p_opts, p_now);
    IF v_weight IS NOT NULL THEN
        v_body.metadata := v_body.metadata || jsonb_build_object('flow_weight', v_weight);
    END IF;
    RETURN v_body;
END;
$$;
