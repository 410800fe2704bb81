-- A key lane listed for longer than idle that still holds 20,000 jobs above
-- its cursor (a flood tenant) is kept, and finding that reads a handful of
-- ready entries (the first above the cursor, in index order), not its backlog.
begin;
select plan(2);

select * from awa.configure_queue('kq_big', '{"concurrency": {"key": "args.tenant", "limit": 5}}');
select count(*) from generate_series(1, 3) g,
  awa.insert_jobs(array_fill('k'::text, array[7000]), array_fill('{"tenant":"flood"}'::jsonb, array[7000]),
                  array_fill('{"queue": "kq_big"}'::jsonb, array[7000]));
select count(*) from awa.claim_ready_runtime('kq_big', 5);

-- awa_test.ready_reads: the ready entries this transaction has read so far.
create temp table r0 as select awa_test.ready_reads() as n;
select is_empty($$select * from awa.retire_idle_key_lanes(1000, '1 minute', now() + interval '2 minutes')$$,
                'the flood key''s lane, listed long ago but with jobs waiting, is kept');
select cmp_ok(awa_test.ready_reads() - (select n from r0), '<', 200::bigint,
              'the drain test read a handful of ready entries, not the 20,995 of the backlog');

select * from finish();
rollback;
