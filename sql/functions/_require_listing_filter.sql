-- awa._require_listing_filter(queue, kind, tag, limit): the checks the
-- listings share (awa.list_jobs, awa.list_dlq_jobs): a limit within 1..1000
-- and, when given, a queue name a job can have, a kind and a tag of a length
-- an insert accepts. Pure; no lock, no write.
-- Errors: AW010 the limit; AW002 the queue; AW001 the kind; AW007 the tag.
-- Called by awa.list_jobs and awa.list_dlq_jobs.
CREATE FUNCTION awa._require_listing_filter(p_queue text, p_kind text, p_tag text, p_limit int)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
AS $$
BEGIN
    PERFORM awa._require_between('limit', p_limit, 1, 1000);
    IF p_queue IS NOT NULL THEN
        PERFORM awa._require_queue_name(p_queue);
    END IF;
    IF length(p_kind) NOT BETWEEN 1 AND 255 THEN
        RAISE EXCEPTION 'awa: kind must be 1 to 255 characters, got %', quote_literal(left(p_kind, 300))
            USING ERRCODE = 'AW001';
    END IF;
    IF length(p_tag) NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'awa: tag must be 1 to 100 characters, got %', quote_literal(left(p_tag, 150))
            USING ERRCODE = 'AW007';
    END IF;
END;
$$;
