-- awa._append_ready(jobs, now, produce): appends jobs as ready rows in the current queue
-- slot, in array order within each lane, and notifies a queue's channel only
-- when its claimers may be idle (the notify rule). Each (queue, priority)
-- goes to one of its shard lanes: the one this transaction used, else a free
-- one, else a new shard (awa._add_lane), else it waits on one. Positions come
-- in blocks of 1024 from the lane's pool sequence.
-- Locks: every lane resolved first (awa._resolve_lanes), then per (queue,
-- priority) in that order the lane's producer lock (lane_producer, lane_id),
-- held until commit. Separate calls that lock lanes in opposite orders can
-- deadlock (40P01) once every shard is held.
-- The notify rule (awa._claimers_behind) reads current slots only, so a
-- producer never queues behind a prune of a sealed slot.
-- Session settings: the lane cache (5 s; with the queue's max_depth and
-- concurrency_key) and the transaction's chosen shard.
-- A queue with a concurrency_key: each job with a key value
-- (awa._job_key) goes to its key's lane at its priority (awa._key_lane,
-- resolved with the others before any lane lock), whose producer lock is
-- waited for (no shards: producers of one key take turns; the lane is then
-- listed in awa.active_key_lanes, a write only when it was not); keys in key
-- order within a call, all of a (queue, priority)'s keys appended in one pass
-- over the batch (awa._append_key_lanes). Jobs without a value take the
-- shard lanes.
-- With produce (the insert paths), a queue with a max_depth is checked
-- before any lane lock (awa._check_depth: AW060 when the jobs would take its
-- available depth above it); a queue without one costs nothing more (the
-- limit comes with the cached lanes).
-- The rules and why: docs/storage.md, "The producer: lanes, notify rule and
-- session settings".
-- Called by awa.insert_job, awa.insert_jobs, awa.promote_due_jobs and
-- awa.retry_dlq_job; awa.insert_job tries awa._append_one first.
CREATE FUNCTION awa._append_ready(p_jobs awa._job_body[], p_now timestamptz, p_produce boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_slot  int := awa._current_slot('queue');
    -- the batch's (queue, priority) groups, in lock order, with their sizes
    v_q     text[];
    v_p     smallint[];
    v_n     bigint[];
    -- every group's lanes, flat: group g has v_k[g] lanes from v_at[g] + 1
    v_ids   int[] := '{}';
    v_seqs  regclass[] := '{}';
    v_at    int[] := '{}';
    v_k     int[] := '{}';
    v_gids  int[];
    v_gseqs regclass[];
    v_gsh   int;
    v_depth int;
    v_kpath text[] := '{}';
    v_path  text;
    v_kg    int[] := '{}';
    v_kkey  text[] := '{}';
    v_klane int[] := '{}';
    v_kseq  regclass[] := '{}';
    v_rest  bigint;
    v_seen  bigint;
    v_jkey  text;
    v_kwake boolean;
    v_checked  text[] := '{}';
    v_sh    int[] := '{}';
    v_ck    text[] := '{}';
    v_seq   regclass;
    v_ckey  text;
    v_cache text[];
    v_home  int;
    v_pref  int;
    v_pick  int;
    v_key   text;
    v_lane  int;
    v_first bigint;
    v_block bigint[];
    v_wake  text[] := '{}';
    v_rc    boolean := current_setting('transaction_isolation') = 'read committed';
BEGIN
    IF cardinality(p_jobs) = 1 THEN
        v_q := ARRAY[p_jobs[1].queue];
        v_p := ARRAY[p_jobs[1].priority];
        v_n := ARRAY[1];
    ELSE
        SELECT array_agg(g.queue ORDER BY g.queue, g.priority), array_agg(g.priority ORDER BY g.queue, g.priority),
               array_agg(g.n ORDER BY g.queue, g.priority)
        INTO v_q, v_p, v_n
        FROM (SELECT j.queue, j.priority, count(*) AS n FROM unnest(p_jobs) AS j GROUP BY j.queue, j.priority) AS g;
    END IF;

    FOR g IN 1 .. cardinality(v_q) LOOP
        -- The session's lane cache (see the header), else awa._resolve_lanes.
        v_ckey := awa._lane_cache_key(v_q[g], v_p[g]);
        v_cache := string_to_array(current_setting(v_ckey, true), '|');
        IF v_cache[2] = v_q[g] AND v_cache[1]::float8 > extract(epoch FROM now()) THEN
            v_gids := string_to_array(v_cache[3], ',')::int[];
            v_gseqs := string_to_array(v_cache[4], ',')::oid[]::regclass[];
            v_gsh := v_cache[5]::int;
            v_depth := nullif(v_cache[6], '')::int;
            v_path := nullif(v_cache[7], '');
        ELSE
            SELECT l.ids, l.seqs, l.shards, l.max_depth, l.key_path INTO v_gids, v_gseqs, v_gsh, v_depth, v_path
            FROM awa._resolve_lanes(v_q[g], v_p[g]) AS l;
            PERFORM set_config(v_ckey, concat_ws('|', extract(epoch FROM now()) + 5, v_q[g],
                                                 array_to_string(v_gids, ','), array_to_string(v_gseqs::oid[], ','),
                                                 v_gsh, coalesce(v_depth::text, ''), coalesce(v_path, '')),
                               false);
        END IF;
        v_kpath := v_kpath || v_path;
        -- Key lanes of the group, in key order.
        IF v_path IS NOT NULL THEN
            SELECT coalesce(array_agg(g ORDER BY k.key), '{}') || v_kg, coalesce(array_agg(k.key ORDER BY k.key), '{}') || v_kkey,
                   coalesce(array_agg(l.id ORDER BY k.key), '{}') || v_klane, coalesce(array_agg(l.seq ORDER BY k.key), '{}') || v_kseq
            INTO v_kg, v_kkey, v_klane, v_kseq
            FROM (SELECT DISTINCT awa._job_key(j.args, j.metadata, v_path) AS key
                  FROM unnest(p_jobs) AS j WHERE j.queue = v_q[g] AND j.priority = v_p[g]) AS k
            CROSS JOIN LATERAL awa._key_lane(v_q[g], k.key, v_p[g]) AS l
            WHERE k.key IS NOT NULL;
        END IF;
        -- Backpressure: once per queue, before any lane lock.
        IF p_produce AND v_depth IS NOT NULL AND NOT v_q[g] = ANY (v_checked) THEN
            PERFORM awa._check_depth(v_q[g], v_depth, (SELECT count(*) FROM unnest(p_jobs) AS j WHERE j.queue = v_q[g]));
            v_checked := v_checked || v_q[g];
        END IF;
        v_sh := v_sh || v_gsh;
        v_ck := v_ck || v_ckey;
        v_at := v_at || cardinality(v_ids);
        v_k := v_k || cardinality(v_gids);
        v_ids := v_ids || v_gids;
        v_seqs := v_seqs || v_gseqs;
    END LOOP;

    FOR g IN 1 .. cardinality(v_q) LOOP
        -- The group's lanes in lock order: its keys' lanes, key by key (v_kg
        -- holds groups in reverse order, keys in key order within one), then
        -- for the jobs left (all of them on a queue without a key) a shard
        -- lane. Each gets its rows in one INSERT.
        v_rest := v_n[g];
        FOR i IN 1 .. cardinality(v_kg) + 1 LOOP
            IF i <= cardinality(v_kg) THEN
                -- All of the group's keys at once, at its first (one pass
                -- over the batch, whatever the number of keys).
                CONTINUE WHEN v_kg[i] <> g OR (i > 1 AND v_kg[i - 1] = g);
                SELECT a.appended, a.notify INTO v_seen, v_kwake
                FROM awa._append_key_lanes(
                    p_jobs, v_slot, v_q[g], v_p[g], v_kpath[g],
                    ARRAY(SELECT k FROM unnest(v_kg, v_kkey) WITH ORDINALITY AS u (kg, k, o) WHERE u.kg = g ORDER BY u.o),
                    ARRAY(SELECT l FROM unnest(v_kg, v_klane) WITH ORDINALITY AS u (kg, l, o) WHERE u.kg = g ORDER BY u.o),
                    ARRAY(SELECT s FROM unnest(v_kg, v_kseq) WITH ORDINALITY AS u (kg, s, o) WHERE u.kg = g ORDER BY u.o),
                    p_now, NOT v_q[g] = ANY (v_wake)) AS a;
                v_rest := v_rest - v_seen;
                IF v_kwake THEN
                    v_wake := v_wake || v_q[g];
                END IF;
                CONTINUE;
            ELSE
                EXIT WHEN v_rest = 0;
                v_jkey := NULL;
                v_home := pg_backend_pid() % v_k[g];
                v_key := 'awa.enqueue_shard_' || v_ids[v_at[g] + 1];
                v_pref := nullif(current_setting(v_key, true), '')::int;
                IF v_pref IS NULL OR v_pref >= v_k[g] THEN
                    v_pref := v_home;
                END IF;

                v_pick := NULL;
                FOR s IN 0 .. v_k[g] - 1 LOOP
                    IF pg_try_advisory_xact_lock(awa._lock_key('lane_producer'), v_ids[v_at[g] + (v_pref + s) % v_k[g] + 1]) THEN
                        v_pick := (v_pref + s) % v_k[g];
                        EXIT;
                    END IF;
                END LOOP;
                v_lane := NULL;
                IF v_pick IS NOT NULL THEN
                    v_lane := v_ids[v_at[g] + v_pick + 1];
                    v_seq := v_seqs[v_at[g] + v_pick + 1];
                ELSIF v_k[g] < v_sh[g] AND v_rc THEN
                    -- Every known lane is held: add a shard, if nobody else is adding
                    -- one right now. Nobody can hold the new lane's lock yet.
                    SELECT a.id, a.seq INTO v_lane, v_seq FROM awa._add_lane(v_q[g], v_p[g], v_sh[g]) AS a;
                    IF v_lane IS NOT NULL THEN
                        PERFORM pg_advisory_xact_lock(awa._lock_key('lane_producer'), v_lane);
                        v_pick := v_k[g];
                    END IF;
                    -- Forget the cached lanes either way: a shard added, or none to
                    -- add because others added them since (this session's next
                    -- call sees them rather than waiting on a known lane for 5 s).
                    PERFORM set_config(v_ck[g], '', false);
                END IF;
                IF v_lane IS NULL THEN
                    v_pick := v_pref;
                    v_lane := v_ids[v_at[g] + v_pick + 1];
                    v_seq := v_seqs[v_at[g] + v_pick + 1];
                    PERFORM pg_advisory_xact_lock(awa._lock_key('lane_producer'), v_lane);
                END IF;
                IF v_pick <> v_pref THEN
                    PERFORM set_config(v_key, v_pick::text, true);
                END IF;
            END IF;

            -- One block per 1024 rows (a key's rows are at most the rest);
            -- the pool sequence is shared, so blocks of one call need not be
            -- adjacent.
            IF v_rest <= 1024 THEN
                v_block := ARRAY[nextval(v_seq)];
            ELSE
                v_block := ARRAY(SELECT nextval(v_seq) FROM generate_series(1, (v_rest + 1023) / 1024));
            END IF;
            v_first := v_block[1] * 1024;

            INSERT INTO awa.ready_entries (
                ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
                queue, kind, args, tags, metadata, errors, created_at, run_at)
            SELECT v_slot, v_lane, v_block[(j.k - 1) / 1024 + 1] * 1024 + (j.k - 1) % 1024,
                   j.job_id, j.run_lease, j.attempt, j.max_attempts, j.priority,
                   j.queue, j.kind, j.args, j.tags, j.metadata, j.errors, j.created_at, j.run_at
            FROM (SELECT j.*, row_number() OVER (ORDER BY j.ord) AS k
                  FROM unnest(p_jobs) WITH ORDINALITY AS j (job_id, run_lease, attempt, max_attempts, priority, queue,
                                                           kind, args, tags, metadata, errors, created_at, run_at, ord)
                  WHERE j.queue = v_q[g] AND j.priority = v_p[g]
                    AND (v_kpath[g] IS NULL
                         OR awa._job_key(j.args, j.metadata, v_kpath[g]) IS NOT DISTINCT FROM v_jkey)) AS j;
            GET DIAGNOSTICS v_seen = ROW_COUNT;
            v_rest := v_rest - v_seen;

            CONTINUE WHEN v_q[g] = ANY (v_wake) OR (v_rc AND awa._claimers_behind(v_slot, v_lane, v_first));
            v_wake := v_wake || v_q[g];
        END LOOP;
    END LOOP;

    PERFORM pg_notify('awa:' || q, '') FROM unnest(v_wake) AS q;
END;
$$;
