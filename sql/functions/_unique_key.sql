-- awa._unique_key(job, unique): a job's uniqueness key, the SHA-256 of the
-- canonical text of a JSON object of its components: kind (or opts.unique.key
-- in its place), queue when by_queue, args (whole, or only the named ones)
-- when by_args, and the period bucket of its run_at when by_period. jsonb's
-- text is canonical (keys sorted, one spelling per value), so equal requests
-- give one key from SQL and from any driver: drivers pass the options, never
-- a key of their own making. by_period is read as a number, so 3600.0 (a
-- whole number awa._validate_unique accepts) is the period 3600. unique
-- must be valid (awa._validate_unique).
-- Pure. Called by awa._insert_unique.
CREATE FUNCTION awa._unique_key(p_job awa._job_body, p_unique jsonb)
RETURNS bytea
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT sha256(convert_to((
        CASE WHEN p_unique ? 'key' THEN jsonb_build_object('key', p_unique ->> 'key')
             ELSE jsonb_build_object('kind', p_job.kind) END
        || CASE WHEN p_unique -> 'by_queue' = 'true' THEN jsonb_build_object('queue', p_job.queue)
                ELSE '{}'::jsonb END
        || CASE WHEN jsonb_typeof(p_unique -> 'by_args') = 'array'
                THEN jsonb_build_object('args', (SELECT coalesce(jsonb_object_agg(a.key, a.value), '{}'::jsonb)
                                                 FROM jsonb_each(p_job.args) AS a
                                                 WHERE p_unique -> 'by_args' ? a.key))
                WHEN p_unique -> 'by_args' = 'true' THEN jsonb_build_object('args', p_job.args)
                ELSE '{}'::jsonb END
        || CASE WHEN p_unique ? 'by_period'
                THEN jsonb_build_object('period', (p_unique -> 'by_period')::numeric::bigint,
                                        'bucket', floor(extract(epoch FROM p_job.run_at)
                                                        / (p_unique -> 'by_period')::numeric::bigint)::bigint)
                ELSE '{}'::jsonb END
    )::text, 'UTF8'))
$$;
