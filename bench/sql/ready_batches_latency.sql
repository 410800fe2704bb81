-- In-server times of the batch-shaped ready plane's prototype against today's
-- plane, on one database (docs/batchready.md).
-- On a fresh database with the substrate installed (scripts/apply-sql.sh):
--   psql -X -d "$DSN" -f bench/sql/ready_batches_latency.sql
-- Plane a is awa.insert_jobs / awa.claim_ready_runtime (queue qa), plane b
-- awa_proto.insert_jobs / awa_proto.claim_ready (queue qb); every call is
-- timed inside the server (clock_timestamp around it, in a procedure that
-- commits after each call), a and b interleaved, alternating which goes
-- first. Args {"n": i, "to": md5(i)}. It prints medians and p90 in µs of:
--   insert of 1,000 and of 10,000 jobs per call; claim of 100 and of 1,000
--   (each claim's jobs completed, untimed, before the next);
--   on 1,000,000 jobs of each plane in one slot: the ready row of a random id
--   (a: the job-id index; b: awa_proto.ready_job), the first page of 50 by id
--   and a page after a random id (a: the job-id index walked backwards; b:
--   awa_proto.ready_page, which reads both planes and merges);
--   a claim of 100 from the middle of one row of 1,024 jobs and of one of
--   10,000 (the slice of the args array only: what a row size costs);
--   the other way to find a job by id (ids not contiguous in a row, a GiST
--   range index plus the row's id array), with its index's WAL per row.
-- About 15 minutes on an idle 2-core machine.
\set ON_ERROR_STOP 1
\pset footer off
\ir ready_batches_proto.sql
SELECT count(*) AS archive_rows FROM awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}'::jsonb);
DROP TABLE IF EXISTS public.rb_lat;
CREATE TABLE public.rb_lat (what text, plane text, us float8, at timestamptz DEFAULT clock_timestamp());

CREATE OR REPLACE PROCEDURE public.rb_lat_insert(p_pairs int, p_per int)
LANGUAGE plpgsql AS $$
DECLARE
    v_kinds text[] := array_fill('bench'::text, ARRAY[p_per]);
    v_args  jsonb[];
    v_oa    jsonb[] := array_fill('{"queue": "qa"}'::jsonb, ARRAY[p_per]);
    v_ob    jsonb[] := array_fill('{"queue": "qb"}'::jsonb, ARRAY[p_per]);
    v_t     timestamptz;
BEGIN
    FOR i IN 1 .. p_pairs LOOP
        v_args := ARRAY(SELECT jsonb_build_object('n', i * p_per + g, 'to', md5((i * p_per + g)::text))
                        FROM generate_series(1, p_per) g);
        FOR s IN 0 .. 1 LOOP
            v_t := clock_timestamp();
            IF (i + s) % 2 = 0 THEN
                PERFORM count(*) FROM awa.insert_jobs(v_kinds, v_args, v_oa);
            ELSE
                PERFORM count(*) FROM awa_proto.insert_jobs(v_kinds, v_args, v_ob);
            END IF;
            INSERT INTO public.rb_lat VALUES ('insert x' || p_per, CASE WHEN (i + s) % 2 = 0 THEN 'a' ELSE 'b' END,
                                              extract(epoch FROM clock_timestamp() - v_t) * 1e6);
            COMMIT;
        END LOOP;
    END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE public.rb_lat_claim(p_rounds int, p_per int)
LANGUAGE plpgsql AS $$
DECLARE
    v_ids bigint[]; v_leases bigint[]; v_slots int[]; v_receipts bigint[];
    v_t   timestamptz;
    v_us  float8;
    v_a   boolean;
BEGIN
    FOR i IN 1 .. p_rounds LOOP
        FOR s IN 0 .. 1 LOOP
            v_a := (i + s) % 2 = 0;
            v_t := clock_timestamp();
            IF v_a THEN
                SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
                INTO v_ids, v_leases, v_slots, v_receipts FROM awa.claim_ready_runtime('qa', p_per) AS c;
            ELSE
                SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
                INTO v_ids, v_leases, v_slots, v_receipts FROM awa_proto.claim_ready('qb', p_per) AS c;
            END IF;
            v_us := extract(epoch FROM clock_timestamp() - v_t) * 1e6;
            IF cardinality(v_ids) IS DISTINCT FROM p_per THEN
                RAISE EXCEPTION 'claim % of plane % got % jobs', p_per, CASE WHEN v_a THEN 'a' ELSE 'b' END, cardinality(v_ids);
            END IF;
            INSERT INTO public.rb_lat VALUES ('claim ' || p_per, CASE WHEN v_a THEN 'a' ELSE 'b' END, v_us);
            COMMIT;
            PERFORM count(*) FROM awa.complete_jobs(v_ids, v_leases, v_slots, v_receipts);
            COMMIT;
        END LOOP;
    END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE public.rb_lat_load(p_calls int)
LANGUAGE plpgsql AS $$
DECLARE
    v_kinds text[] := array_fill('bench'::text, ARRAY[1000]);
    v_oa    jsonb[] := array_fill('{"queue": "qa"}'::jsonb, ARRAY[1000]);
    v_ob    jsonb[] := array_fill('{"queue": "qb"}'::jsonb, ARRAY[1000]);
    v_args  jsonb[];
BEGIN
    FOR i IN 1 .. p_calls LOOP
        v_args := ARRAY(SELECT jsonb_build_object('n', i * 1000 + g, 'to', md5((i * 1000 + g)::text))
                        FROM generate_series(1, 1000) g);
        PERFORM count(*) FROM awa.insert_jobs(v_kinds, v_args, v_oa);
        PERFORM count(*) FROM awa_proto.insert_jobs(v_kinds, v_args, v_ob);
        COMMIT;
    END LOOP;
END $$;

-- Lookups and pages over what is loaded: random ids of each plane.
CREATE OR REPLACE PROCEDURE public.rb_lat_read(p_rounds int)
LANGUAGE plpgsql AS $$
DECLARE
    v_alo bigint; v_ahi bigint; v_blo bigint; v_bhi bigint;
    v_id  bigint;
    v_t   timestamptz;
    v_n   int;
BEGIN
    SELECT min(job_id), max(job_id) INTO v_alo, v_ahi FROM awa.ready_entries WHERE queue = 'qa';
    SELECT min(first_id), max(first_id) + 999 INTO v_blo, v_bhi FROM awa_proto.ready_batches WHERE queue = 'qb';
    FOR i IN 1 .. p_rounds LOOP
        v_id := v_alo + floor(random() * (v_ahi - v_alo))::bigint;
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM awa.ready_entries r WHERE r.job_id = v_id;
        INSERT INTO public.rb_lat VALUES ('ready row by id', 'a', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        -- an id that exists in plane b: a row's first_id plus an item below its n
        v_id := (SELECT b.first_id + floor(random() * b.n)::bigint FROM awa_proto.ready_batches b
                 WHERE b.first_id >= v_blo + floor(random() * (v_bhi - v_blo))::bigint ORDER BY b.first_id LIMIT 1);
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM awa_proto.ready_job(v_id);
        INSERT INTO public.rb_lat VALUES ('ready row by id', 'b', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        IF v_n <> 1 THEN
            RAISE EXCEPTION 'ready_job(%) found % rows', v_id, v_n;
        END IF;

        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM (SELECT r.* FROM awa.ready_entries r ORDER BY r.job_id DESC LIMIT 50) AS p;
        INSERT INTO public.rb_lat VALUES ('first page of 50', 'a', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM awa_proto.ready_page(9223372036854775807, 50);
        INSERT INTO public.rb_lat VALUES ('first page of 50', 'b', extract(epoch FROM clock_timestamp() - v_t) * 1e6);

        v_id := v_alo + floor(random() * (v_ahi - v_alo))::bigint;
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM (SELECT r.* FROM awa.ready_entries r WHERE r.job_id < v_id ORDER BY r.job_id DESC LIMIT 50) AS p;
        INSERT INTO public.rb_lat VALUES ('page of 50 after an id', 'a', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        v_id := v_blo + floor(random() * (v_bhi - v_blo))::bigint;
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM awa_proto.ready_page(v_id, 50);
        INSERT INTO public.rb_lat VALUES ('page of 50 after an id', 'b', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        IF v_n <> 50 THEN
            RAISE EXCEPTION 'ready_page(%) gave % rows', v_id, v_n;
        END IF;
    END LOOP;
END $$;

\echo 'insert x1000, 30 pairs; insert x10000, 6 pairs'
CALL public.rb_lat_insert(30, 1000);
CALL public.rb_lat_insert(6, 10000);
\echo 'claim 100, 100 pairs; claim 1000, 20 pairs'
CALL public.rb_lat_claim(100, 100);
CALL public.rb_lat_claim(20, 1000);
\echo 'load 1,000,000 jobs into each plane (1,000 calls of 1,000)'
-- 90,000 inserted above, 30,000 of them claimed: 940,000 more.
CALL public.rb_lat_load(940);
VACUUM ANALYZE awa.ready_entries, awa_proto.ready_batches;
SELECT (SELECT count(*) FROM awa.ready_entries WHERE queue = 'qa') AS a_ready_rows,
       (SELECT sum(n) FROM awa_proto.ready_batches WHERE queue = 'qb') AS b_items,
       pg_size_pretty(pg_total_relation_size('awa.ready_entries_0')) AS a_slot_size,
       pg_size_pretty(pg_total_relation_size('awa_proto.ready_batches_0')) AS b_slot_size;
CALL public.rb_lat_read(300);
\echo 'one lookup and one page each, buffers'
SELECT max(job_id) - 12345 AS a_id FROM awa.ready_entries \gset
SELECT max(first_id) - 20480 + 77 AS b_id FROM awa_proto.ready_batches \gset
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM awa.ready_entries r WHERE r.job_id = :a_id;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM awa_proto.ready_job(:b_id);
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM awa.ready_entries r WHERE r.job_id < :a_id ORDER BY r.job_id DESC LIMIT 50;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM awa_proto.ready_page(:b_id, 50);

-- Row size: a claim's slice of 100 args from the middle of a row of 1,024
-- and of 10,000 (lz4, as the plane stores them).
CREATE TABLE public.rb_rows (id int PRIMARY KEY, n int, item_args jsonb[]);
ALTER TABLE public.rb_rows ALTER COLUMN item_args SET COMPRESSION lz4;
INSERT INTO public.rb_rows
SELECT r, s, ARRAY(SELECT jsonb_build_object('n', g, 'to', md5(g::text)) FROM generate_series(1, s) g)
FROM (VALUES (1, 1024), (2, 10000)) AS v (r, s);
CREATE OR REPLACE PROCEDURE public.rb_lat_slice(p_rounds int)
LANGUAGE plpgsql AS $$
DECLARE
    v_t  timestamptz;
    v_k  int;
    v_n  int;
BEGIN
    FOR i IN 1 .. p_rounds LOOP
        FOR r IN 1 .. 2 LOOP
            v_k := 1 + floor(random() * (CASE r WHEN 1 THEN 924 ELSE 9900 END))::int;
            v_t := clock_timestamp();
            SELECT count(a) INTO v_n FROM public.rb_rows t, unnest(t.item_args[v_k:v_k + 99]) AS a WHERE t.id = r;
            INSERT INTO public.rb_lat VALUES ('slice of 100 from a row of ' || CASE r WHEN 1 THEN '1,024' ELSE '10,000' END,
                                              'b', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        END LOOP;
    END LOOP;
END $$;
CALL public.rb_lat_slice(300);
SELECT id, n, pg_column_size(item_args) AS stored_bytes, pg_column_compression(item_args) AS compression FROM public.rb_rows ORDER BY id;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(a) FROM public.rb_rows t, unnest(t.item_args[5000:5099]) AS a WHERE t.id = 2;

-- The other id scheme: ids drawn one by one, so four producers' rows
-- interleave; a row keeps its ids as an array and its id range in a GiST
-- index. WAL per row of that index, and a lookup's time.
CREATE TABLE public.rb_gist (first_id bigint, last_id bigint, item_ids bigint[], item_args jsonb[]);
ALTER TABLE public.rb_gist ALTER COLUMN item_ids SET COMPRESSION lz4, ALTER COLUMN item_args SET COMPRESSION lz4;
CREATE TABLE public.rb_gist_noindex (LIKE public.rb_gist INCLUDING ALL);
CREATE INDEX rb_gist_range ON public.rb_gist USING gist (int8range(first_id, last_id, '[]'));
CREATE OR REPLACE PROCEDURE public.rb_gist_fill(p_table regclass)
LANGUAGE plpgsql AS $$
BEGIN
    FOR r IN 0 .. 999 LOOP
        EXECUTE format($f$INSERT INTO %s
            SELECT (%2$s / 4) * 4000 + %2$s %% 4, (%2$s / 4) * 4000 + 3996 + %2$s %% 4,
                   ARRAY(SELECT (%2$s / 4) * 4000 + %2$s %% 4 + 4 * g FROM generate_series(0, 999) g),
                   ARRAY(SELECT jsonb_build_object('n', g, 'to', md5(g::text)) FROM generate_series(0, 999) g)$f$,
            p_table, r);
        COMMIT;
    END LOOP;
END $$;
SELECT pg_current_wal_insert_lsn() AS l0 \gset
CALL public.rb_gist_fill('public.rb_gist_noindex');
SELECT pg_current_wal_insert_lsn() AS l1 \gset
CALL public.rb_gist_fill('public.rb_gist');
SELECT pg_current_wal_insert_lsn() AS l2 \gset
SELECT round(pg_wal_lsn_diff(:'l1', :'l0') / 1000.0, 1) AS rows_of_1000_no_index_wal_per_row,
       round(pg_wal_lsn_diff(:'l2', :'l1') / 1000.0, 1) AS with_gist_wal_per_row,
       round((pg_wal_lsn_diff(:'l2', :'l1') - pg_wal_lsn_diff(:'l1', :'l0')) / 1000.0, 1) AS gist_entry_wal_per_row;
CREATE OR REPLACE PROCEDURE public.rb_lat_gist(p_rounds int)
LANGUAGE plpgsql AS $$
DECLARE
    v_t  timestamptz;
    v_id bigint;
    v_n  int;
BEGIN
    FOR i IN 1 .. p_rounds LOOP
        v_id := floor(random() * 1000000)::bigint;
        v_t := clock_timestamp();
        SELECT count(*) INTO v_n FROM public.rb_gist g
        WHERE int8range(g.first_id, g.last_id, '[]') @> v_id AND v_id = ANY (g.item_ids);
        INSERT INTO public.rb_lat VALUES ('id lookup, GiST range + id array', 'b', extract(epoch FROM clock_timestamp() - v_t) * 1e6);
    END LOOP;
END $$;
CALL public.rb_lat_gist(300);
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM public.rb_gist g WHERE int8range(g.first_id, g.last_id, '[]') @> 123457::bigint AND 123457 = ANY (g.item_ids);

\echo 'in-server µs per call: median (p90), calls'
SELECT what, plane, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY us)) AS p50_us,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY us)) AS p90_us, count(*) AS calls
FROM public.rb_lat GROUP BY what, plane ORDER BY min(at), plane;
