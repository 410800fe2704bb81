-- awa._request_plain(kind, args, opts): true when a job request is plainly
-- valid and due now: kind 1..255 characters, args an object, opts NULL or an
-- object with only queue, priority, max_attempts, tags and metadata, each
-- valid. False for anything else (a bad value, run_at, NULLs), which the
-- callers send through awa._validate_job for the precise error or the full
-- rules. Pure, and one expression without subqueries, so PostgreSQL inlines
-- it into awa.insert_jobs' set-based check. Called by awa.insert_job and
-- awa.insert_jobs (fast path).
CREATE FUNCTION awa._request_plain(p_kind text, p_args jsonb, p_opts jsonb)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT coalesce(
        length(p_kind) BETWEEN 1 AND 255
        AND jsonb_typeof(p_args) = 'object'
        AND (p_opts IS NULL OR (
            jsonb_typeof(p_opts) = 'object'
            AND p_opts - ARRAY['queue', 'priority', 'max_attempts', 'tags', 'metadata'] = '{}'::jsonb
            AND (NOT p_opts ? 'queue' OR (jsonb_typeof(p_opts -> 'queue') = 'string'
                 AND awa._queue_name_ok(p_opts ->> 'queue')))
            AND (NOT p_opts ? 'priority' OR (jsonb_typeof(p_opts -> 'priority') = 'number'
                 AND (p_opts ->> 'priority') IN ('1', '2', '3', '4')))
            AND (NOT p_opts ? 'max_attempts' OR (jsonb_typeof(p_opts -> 'max_attempts') = 'number'
                 AND (p_opts ->> 'max_attempts') ~ '^[0-9]{1,4}$'
                 AND (p_opts ->> 'max_attempts')::int BETWEEN 1 AND 1000))
            AND (NOT p_opts ? 'metadata' OR jsonb_typeof(p_opts -> 'metadata') = 'object')
            AND (NOT p_opts ? 'tags' OR (jsonb_typeof(p_opts -> 'tags') = 'array'
                 AND jsonb_array_length(p_opts -> 'tags') <= 20
                 AND NOT jsonb_path_exists(p_opts -> 'tags',
                         '$[*] ? (@.type() != "string" || @ == "" || @ like_regex "^.{101}" flag "s")')))
        )), false)
$$;
