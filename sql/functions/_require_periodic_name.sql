-- awa._require_periodic_name(name): returns when name can name a periodic
-- job: 1 to 100 characters of [A-Za-z0-9_.:-]; otherwise raises AW050.
-- Pure: no lock, no write.
-- Called by upsert_periodic_job and awa._lock_periodic_job.
CREATE FUNCTION awa._require_periodic_name(p_name text)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
AS $$
BEGIN
    IF p_name IS NULL OR p_name !~ '^[A-Za-z0-9_.:-]{1,100}$' THEN
        RAISE EXCEPTION 'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got %',
            coalesce(quote_literal(p_name), 'null')
            USING ERRCODE = 'AW050';
    END IF;
END;
$$;
