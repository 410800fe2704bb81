-- awa.queue_pending(queue).ready is true when a committed job waits above a
-- lane's cursor and every producer of that lane has ended (a claim now would
-- find it): not for an unknown or drained queue, and not while the lane's
-- only work may be an open producer's (pending, but not ready). The open
-- producer is a second session, opened with dblink, that holds the producer
-- lock of a lane of queue rq_open (created here without an insert, so this
-- session holds none of its producer locks, and given a drawn position block).
begin;
select plan(7);

select results_eq($$select pending, ready from awa.queue_pending('rq')$$, $$values (false, false)$$,
                  'an unknown queue: neither pending nor ready');

select * from awa.insert_job('k', '{}', '{"queue": "rq"}');
select results_eq($$select pending, ready from awa.queue_pending('rq')$$, $$values (true, true)$$,
                  'an unclaimed job: pending and ready');

select * from awa.claim_ready_runtime('rq', 10);
select results_eq($$select pending, ready from awa.queue_pending('rq')$$, $$values (false, false)$$,
                  'a drained queue: neither');

select awa_test.connect_other('-c statement_timeout=10s');
-- A position block drawn from the lane's pool sequence, as a producer draws one.
select nextval(seqs[1]) > 0 from awa._resolve_lanes('rq_open', 2::smallint);
 select is((select l from dblink('awa_other', format('select pg_advisory_lock(awa._lock_key(''lane_producer''), %s)::text',
                      (select lane_id from awa.queue_lanes where queue = 'rq_open' and priority = 2))) as r (l text)),
          '', 'the second session holds the lane''s producer lock, as an open producer does (fixture)');
select results_eq($$select pending, ready from awa.queue_pending('rq_open')$$, $$values (true, false)$$,
                  'an open producer: pending, not ready');
select * from dblink('awa_other', 'select pg_advisory_unlock_all()::text') as r (x text);
select dblink_disconnect('awa_other');

select results_eq($$select pending, ready from awa.queue_pending('rq_open')$$, $$values (false, false)$$,
                  'once it ends without a row: neither');

select * from finish();
rollback;
