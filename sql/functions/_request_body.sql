-- awa._request_body(kind, args, opts, now): the body of a job request that
-- awa._request_plain accepts (defaults applied, a new job id, due now). Only
-- for requests it accepted: it does not validate. Called by awa.insert_job;
-- awa.insert_jobs builds the same body inline.
CREATE FUNCTION awa._request_body(p_kind text, p_args jsonb, p_opts jsonb, p_now timestamptz)
RETURNS awa._job_body
LANGUAGE sql
AS $$
    SELECT ROW(nextval('awa.job_id_seq'), 0, 0,
               coalesce((p_opts ->> 'max_attempts')::int, 25),
               coalesce((p_opts ->> 'priority')::smallint, 2),
               coalesce(p_opts ->> 'queue', 'default'),
               p_kind, p_args,
               coalesce(ARRAY(SELECT t.v FROM jsonb_array_elements_text(p_opts -> 'tags') WITH ORDINALITY AS t (v, o)
                              ORDER BY t.o), ARRAY[]::text[]),
               coalesce(p_opts -> 'metadata', '{}'::jsonb),
               NULL, p_now, p_now)::awa._job_body
$$;
