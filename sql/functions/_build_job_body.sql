-- awa._build_job_body(job_id, kind, args, opts, now): the body of a job
-- request that awa._request_plain or awa._validate_job accepted, and the one
-- definition of the job defaults: queue 'default', priority 2, max_attempts
-- 25, no tags, metadata {}, run_at now. Does not validate. One expression
-- without subqueries (tags via jsonb_populate_record), so PostgreSQL inlines
-- it into its callers' statements: the set-based insert costs no call per row.
-- Tags are decoded only when opts has them (a record per row otherwise).
-- Pure. Called by awa.insert_job, awa.insert_jobs and awa._validate_job.
CREATE FUNCTION awa._build_job_body(p_job_id bigint, p_kind text, p_args jsonb, p_opts jsonb, p_now timestamptz)
RETURNS awa._job_body
LANGUAGE sql
STABLE
AS $$
    SELECT ROW(p_job_id, 0, 0,
               coalesce((p_opts ->> 'max_attempts')::numeric::int, 25),
               coalesce((p_opts ->> 'priority')::numeric::smallint, 2),
               coalesce(p_opts ->> 'queue', 'default'),
               p_kind, p_args,
               CASE WHEN p_opts ? 'tags'
                    THEN coalesce((jsonb_populate_record(NULL::awa._job_body, jsonb_build_object('tags', p_opts -> 'tags'))).tags,
                                  ARRAY[]::text[])
                    ELSE ARRAY[]::text[] END,
               coalesce(p_opts -> 'metadata', '{}'::jsonb),
               NULL, p_now, coalesce((p_opts ->> 'run_at')::timestamptz, p_now))::awa._job_body
$$;
