-- What a batch row's size costs a claim (docs/batchready.md, "Risks"): the
-- time to slice 10 and 100 jobs' args out of the middle of one row, for rows
-- of 64 to 10,000 jobs with small args ({"n": i, "to": md5(i)}, about 50 B)
-- and with about 1 KB each (32 md5s, which lz4 cannot shrink much), stored
-- lz4 as the plane stores them. PostgreSQL decompresses a compressed array
-- whole before it slices it, so the time follows the row, not the slice.
-- Needs nothing installed; leaves the table public.rb_size behind.
--   psql -X -d "$DSN" -f bench/sql/ready_batches_rowsize.sql
\set ON_ERROR_STOP 1
\pset footer off
DROP TABLE IF EXISTS public.rb_size, public.rb_size_lat;
CREATE TABLE public.rb_size (id int PRIMARY KEY, args text, n int, item_args jsonb[]);
ALTER TABLE public.rb_size ALTER COLUMN item_args SET COMPRESSION lz4;
CREATE TABLE public.rb_size_lat (id int, slice int, us float8);
INSERT INTO public.rb_size
SELECT row_number() OVER (ORDER BY a.args DESC, v.n), a.args, v.n,
       ARRAY(SELECT CASE a.args WHEN 'small' THEN jsonb_build_object('n', g, 'to', md5(g::text))
                    ELSE jsonb_build_object('n', g, 'body', (SELECT string_agg(md5(g || '.' || x), '')
                                                             FROM generate_series(1, 32) x)) END
             FROM generate_series(1, v.n) g)
FROM (VALUES ('small'), ('1 KB')) AS a (args), (VALUES (64), (256), (1024), (10000)) AS v (n)
WHERE a.args = 'small' OR v.n <= 1024;

CREATE OR REPLACE PROCEDURE public.rb_size_run(p_rounds int)
LANGUAGE plpgsql AS $$
DECLARE
    v_t timestamptz;
    v_k int;
    v_c int;
    r   record;
BEGIN
    FOR i IN 1 .. p_rounds LOOP
        FOR r IN SELECT s.id, s.n, w.want FROM public.rb_size s, (VALUES (10), (100)) AS w (want)
                 WHERE w.want < s.n ORDER BY random() LOOP
            v_k := 1 + floor(random() * (r.n - r.want))::int;
            v_t := clock_timestamp();
            SELECT count(a) INTO v_c FROM public.rb_size t, unnest(t.item_args[v_k:v_k + r.want - 1]) AS a WHERE t.id = r.id;
            INSERT INTO public.rb_size_lat VALUES (r.id, r.want, extract(epoch FROM clock_timestamp() - v_t) * 1e6);
        END LOOP;
    END LOOP;
END $$;
CALL public.rb_size_run(200);

\echo 'µs to slice a claim out of one row: median (p90), 200 calls each'
SELECT s.args, s.n AS jobs, pg_column_size(s.item_args) AS stored_bytes, l.slice,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.us)) AS p50_us,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY l.us)) AS p90_us
FROM public.rb_size s JOIN public.rb_size_lat l ON l.id = s.id
GROUP BY s.id, s.args, s.n, s.item_args, l.slice ORDER BY s.id, l.slice;
