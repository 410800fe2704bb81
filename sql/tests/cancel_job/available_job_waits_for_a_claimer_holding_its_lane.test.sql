-- Cancel of an available job and a claim of its lane take turns on the lane's
-- claim lock (lane_claim, lane_id): while another session holds it (as a
-- claimer does until it commits), cancel_job waits for it (here: until
-- lock_timeout) and writes nothing, and a claim skips the lane at once
-- without a wait and without a mark. Once the lock is free, the cancel applies
-- and the claim passes the tombstoned job. The holder is a second session
-- opened with dblink.
begin;
select plan(9);

select * from awa.configure_queue('cr', '{"enqueue_shards": 1}');
create temp table j as
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "cr"}'::jsonb, array[2]));
create temp table lane as select lane_id from awa.queue_lanes where queue = 'cr' and priority = 2;

select awa_test.connect_other();
select lives_ok(
  format($$select dblink_exec('awa_other', 'begin; do $x$ begin perform pg_advisory_xact_lock(awa._lock_key(''lane_claim''), %s); end $x$')$$,
         (select lane_id from lane)),
  'the second session holds the lane''s claim lock, as an open claim does (fixture)');

set local lock_timeout = '200ms';
select throws_ok(
  format('select * from awa.cancel_job(%s)', (select min(id) from j)), '55P03', null,
  'cancel_job waits for the claim lock (lock_timeout ends the wait)');
reset lock_timeout;
select is((select count(*)::int from awa.ready_tombstones where lane_id = (select lane_id from lane)), 0,
          'the cancel wrote no tombstone');

create temp table t0 as select clock_timestamp() as at;
select is_empty($$select * from awa.claim_ready_runtime('cr', 10, null, now())$$,
                'a claim skips the held lane and returns nothing');
select ok(clock_timestamp() - (select at from t0) < interval '1 second', 'without waiting for it');
select is((select count(*)::int from awa.cursor_marks where lane_id = (select lane_id from lane)), 0,
          'and writes no mark for it');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select results_eq(format('select outcome::text, state::text from awa.cancel_job(%s)', (select min(id) from j)),
                  $$values ('applied', 'cancelled')$$, 'once the lock is free the cancel applies');
select results_eq($$select id from awa.claim_ready_runtime('cr', 10, null, now())$$,
                  $$select max(id) from j$$, 'and the claim takes only the job that was not cancelled');

select * from finish();
rollback;
