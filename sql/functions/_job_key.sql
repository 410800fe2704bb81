-- awa._job_key(args, metadata, path): a job's concurrency key under the
-- queue's concurrency_key path ('args.a.b' reads args #>> '{a,b}',
-- 'metadata.a' metadata #>> '{a}'), as text, at most 200 characters; NULL
-- when the path is NULL or the job has no value there (JSON null included).
-- IMMUTABLE LANGUAGE sql: inlined in the caller's query.
-- Called by awa._append_ready.
CREATE FUNCTION awa._job_key(p_args jsonb, p_metadata jsonb, p_path text)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT left(CASE WHEN p_path LIKE 'args.%' THEN p_args #>> string_to_array(substr(p_path, 6), '.')
                     ELSE p_metadata #>> string_to_array(substr(p_path, 10), '.') END, 200)
$$;
