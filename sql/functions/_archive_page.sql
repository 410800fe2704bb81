-- awa._archive_page(states, queue, kind, tag, from, to, after, limit): the
-- archive's part of a listing page: at most `limit` archived jobs of the
-- terminal states given, with id below `after` (NULL: any), matching the
-- filters (queue, kind, tag, finalized_at in [from, to)), the newest (highest
-- ids); unordered. A top-k merge over chunks (docs/storage.md, "Paging"): one
-- walk of the chunks newest first by max_job_id (awa._archive_walk_sql: an
-- index walk per cohort, merged, of (max_job_id, min_job_id), or of the
-- queue's, kind's or states' index, or for a tag of awa.archived_tags),
-- starting at max_job_id < after + awa._archive_span() (a chunk holding an id
-- below after has its max_job_id there) with min_job_id < after filtered in
-- the index; each chunk's ids (and finalization times, for a range) are
-- merged into the best `limit` kept so far, and the walk stops when it holds
-- `limit` and the next chunk's max_job_id is below the lowest of them (no
-- later chunk can hold a higher id). Then the kept jobs are read from their
-- chunks, each chunk expanded once. A time range reads, per retention in
-- awa.archive_retention_log, only the cohorts whose expiry it implies.
-- STABLE: every statement reads on its caller's snapshot, the one the other
-- branches of the listing read (a job is in the ring or the archive, never
-- both). No lock beyond the read, no write. Inputs are checked by its caller.
-- Called by the statement awa._list_jobs_sql writes (awa.list_jobs).
CREATE FUNCTION awa._archive_page(p_states awa.job_state[], p_queue text, p_kind text, p_tag text,
                                  p_from timestamptz, p_to timestamptz, p_after bigint, p_limit int)
RETURNS SETOF awa._archived_job
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_after  bigint := coalesce(p_after, 9223372036854775807);
    v_walk   text;
    v_c      record;
    v_ids    bigint[] := '{}';
    v_exps   timestamptz[] := '{}';
    v_chunks bigint[] := '{}';
BEGIN
    v_walk := awa._archive_walk_sql(p_states, p_queue, p_kind, p_tag, p_from, p_to, p_after);
    IF v_walk IS NULL THEN
        RETURN;
    END IF;
    FOR v_c IN EXECUTE v_walk LOOP
        EXIT WHEN cardinality(v_ids) >= p_limit AND v_c.max_job_id < v_ids[p_limit];
        SELECT coalesce(array_agg(h.id ORDER BY h.id DESC), '{}'), coalesce(array_agg(h.exp ORDER BY h.id DESC), '{}'),
               coalesce(array_agg(h.chunk ORDER BY h.id DESC), '{}')
        INTO v_ids, v_exps, v_chunks
        FROM (SELECT x.id, x.exp, x.chunk
              FROM (SELECT o.id, o.exp, o.chunk FROM unnest(v_ids, v_exps, v_chunks) AS o (id, exp, chunk)
                    UNION ALL
                    SELECT u.id, v_c.expires_at, v_c.chunk_id FROM unnest(v_c.ids, v_c.fins) AS u (id, fin)
                    WHERE u.id < v_after AND (p_from IS NULL OR u.fin >= p_from) AND (p_to IS NULL OR u.fin < p_to)
                      -- Once `limit` are held, only ids above the lowest of them.
                      AND (cardinality(v_ids) < p_limit OR u.id > v_ids[p_limit]))
                   AS x
              ORDER BY x.id DESC LIMIT p_limit) AS h;
    END LOOP;

    -- The jobs kept, each chunk read once by its id (a probe of its cohort's
    -- (chunk_id) index: OFFSET 0 keeps the probe per chunk, never a join of
    -- every chunk) and expanded once.
    RETURN QUERY
    SELECT a.*
    FROM (SELECT h.exp, h.chunk, array_agg(h.id) AS ids FROM unnest(v_ids, v_exps, v_chunks) AS h (id, exp, chunk)
          GROUP BY h.exp, h.chunk) AS h
    CROSS JOIN LATERAL (SELECT c AS chunk FROM awa.archived_chunks c
                        WHERE c.expires_at = h.exp AND c.chunk_id = h.chunk OFFSET 0) AS c
    CROSS JOIN LATERAL awa._archive_jobs(c.chunk) AS a
    WHERE a.job_id = ANY (h.ids);
END;
$$;
