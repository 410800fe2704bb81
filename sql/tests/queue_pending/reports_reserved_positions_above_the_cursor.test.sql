-- awa.queue_pending(queue) is true while some lane of the queue has a job
-- above its claim cursor; false for an unknown or drained queue, and for
-- positions a rolled-back insert reserved. It writes nothing.
begin;
select plan(7);

select is((select pending from awa.queue_pending('pq')), false, 'an unknown queue has nothing pending');

select * from awa.insert_job('k', '{}', '{"queue": "pq", "priority": 3}');
select is((select pending from awa.queue_pending('pq')), true, 'an unclaimed job is pending');

create temp table before as select awa_test.row_counts() as c;
select is((select pending from awa.queue_pending('pq')), true, 'asking again gives the same answer');
select is(awa_test.row_counts(), (select c from before), 'queue_pending writes nothing');

select * from awa.claim_ready_runtime('pq', 10);
select is((select pending from awa.queue_pending('pq')), false, 'a drained queue has nothing pending');

savepoint s;
select * from awa.insert_job('k', '{}', '{"queue": "pq"}');
rollback to s;
select is((select pending from awa.queue_pending('pq')), false,
          'a rolled-back insert''s position is not pending');
select * from awa.insert_job('k', '{}', '{"queue": "pq"}');
select is((select pending from awa.queue_pending('pq')), true, 'a committed one is');

select * from finish();
rollback;
