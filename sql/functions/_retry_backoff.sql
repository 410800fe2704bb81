-- awa._retry_backoff(attempt, job_id, run_lease, now): when a job whose
-- attempt number attempt just failed runs again: now + attempt^4 + 1
-- seconds, plus up to 10% jitter (a hash of the job and attempt, so a retry
-- storm spreads out), capped at a day. The one backoff rule: used by
-- awa._route_closed and awa._route_parked.
CREATE FUNCTION awa._retry_backoff(p_attempt int, p_job_id bigint, p_run_lease bigint, p_now timestamptz)
RETURNS timestamptz
LANGUAGE sql
STABLE
AS $$
    SELECT p_now + make_interval(secs => least(
        (power(p_attempt, 4) + 1) * (1 + ((hashint8(p_job_id + p_run_lease) & 2147483647) % 100) / 1000.0),
        86400))
$$;
