-- Cancel of an available job of a batch row takes turns with a claim of its
-- lane as that of a per-row one: while a second session (dblink) holds the
-- lane's claim lock (lane_claim, lane_id), as a claimer does until it
-- commits, cancel_job waits for it (here: until lock_timeout) and writes
-- nothing; once the lock is free it applies. (A prune's lock on the slot's
-- ready_batches child cannot be held from a second session here: this
-- transaction's insert of the row holds the child until it ends.)
begin;
select plan(5);

create temp table ids as
select awa_test.batch_row(array['cw.k', 'cw.k'], null, array_fill('{"queue": "cwq"}'::jsonb, array[2])) as ids;
create temp table b as select r.ready_slot, r.lane_id from awa.ready_batches r where r.queue = 'cwq';

select awa_test.connect_other();
select lives_ok(
  format($$select dblink_exec('awa_other', 'begin; do $x$ begin perform pg_advisory_xact_lock(awa._lock_key(''lane_claim''), %s); end $x$')$$,
         (select lane_id from b)),
  'the second session holds the lane''s claim lock, as an open claim does (fixture)');
set local lock_timeout = '200ms';
select throws_ok(format('select * from awa.cancel_job(%s)', (select ids[2] from ids)), '55P03', null,
                 'cancel_job of the batch job waits for the claim lock (lock_timeout ends the wait)');
reset lock_timeout;
select is((select count(*)::int from awa.ready_tombstones where lane_id = (select lane_id from b)), 0,
          'the cancel wrote no tombstone');
select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select results_eq(format('select outcome::text, state::text from awa.cancel_job(%s)', (select ids[2] from ids)),
                  $$values ('applied', 'cancelled')$$, 'once the lock is free the cancel applies');

select * from finish();
rollback;
