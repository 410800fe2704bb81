-- limit bounds the attempts closed per call over both kinds of deadline
-- (claim batches' and attempts' own), earliest first.
begin;
select plan(3);

select * from awa.configure_queue('red_lim', '{"deadline_seconds": 300}');
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "red_lim"}'::jsonb, array[3]));
create temp table c as select row_number() over () as n, * from awa.claim_ready_runtime('red_lim', 3, null, '2030-01-01 12:00:00+00');
-- item 1: the batch's deadline (12:05); item 2: its own at 12:02; item 3: its own at 12:04
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:02:00+00',
                                                '2030-01-01 12:00:01+00') where c.n = 2;
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:04:00+00',
                                                '2030-01-01 12:00:01+00') where c.n = 3;

select results_eq($$select job_id from awa.rescue_expired_deadlines(2, '2030-01-01 12:10:00+00')$$,
                  $$select id from c where n in (2, 3) order by n$$,
                  'limit 2 closes the two earliest: both own deadlines');
select results_eq($$select job_id from awa.rescue_expired_deadlines(2, '2030-01-01 12:10:00+00')$$,
                  $$select id from c where n = 1$$,
                  'the next call closes the attempt past its batch''s deadline');
select is_empty($$select * from awa.rescue_expired_deadlines(2, '2030-01-01 12:10:00+00')$$, 'then nothing is left');

select * from finish();
rollback;
