-- awa.queues_ready(queues) returns, in one call, the listed queues a claim
-- may find work in, each once and in name order, with ready as
-- awa.queue_pending says: a queue holding an unclaimed job; not a queue
-- never used, one drained by a claim, a paused one, or one not listed. It
-- writes nothing.
begin;
select plan(7);

select * from awa.insert_job('k', '{}', '{"queue": "qr_b"}');
select * from awa.insert_job('k', '{}', '{"queue": "qr_a", "priority": 3}');
select * from awa.insert_job('k', '{}', '{"queue": "qr_drained"}');
select * from awa.insert_job('k', '{}', '{"queue": "qr_paused"}');
select * from awa.insert_job('k', '{}', '{"queue": "qr_unlisted"}');
select count(*) from awa.claim_ready_runtime('qr_drained', 10);
select * from awa.pause_queue('qr_paused');

create temp table before as select awa_test.row_counts() as c;
select results_eq(
  $$select queue, ready, wait_for from awa.queues_ready(array['qr_b', 'qr_new', 'qr_drained', 'qr_paused', 'qr_a', 'qr_b'])$$,
  $$values ('qr_a'::text, true, null::interval), ('qr_b', true, null)$$,
  'the queues holding a job, each once, in name order, ready, no wait');
select is(awa_test.row_counts(), (select c from before), 'queues_ready writes nothing');
select is_empty($$select * from awa.queues_ready(array['qr_new', 'qr_drained', 'qr_paused'])$$,
  'a queue never used, a drained one and a paused one return nothing');
select is_empty($$select * from awa.queues_ready('{}')$$, 'no queue listed, no row');

select count(*) from awa.claim_ready_runtime('qr_a', 10);
select results_eq($$select queue from awa.queues_ready(array['qr_a', 'qr_b'])$$,
  $$values ('qr_b'::text)$$, 'a claim that drains a queue takes it out');

select * from awa.resume_queue('qr_paused');
select results_eq($$select queue, ready from awa.queues_ready(array['qr_paused', 'qr_drained'])$$,
  $$values ('qr_paused'::text, true)$$, 'a resumed queue holding a job is back');

savepoint s;
select * from awa.insert_job('k', '{}', '{"queue": "qr_drained"}');
rollback to s;
select is_empty($$select * from awa.queues_ready(array['qr_drained'])$$,
  'positions a rolled-back insert reserved do not count');

select * from finish();
rollback;
