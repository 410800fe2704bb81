-- Priority 1 is claimed before 2, 2 before 3, 3 before 4, whatever the
-- insert order; a small max takes from the highest priority first.
begin;
select plan(3);

select * from awa.insert_jobs(
  array['p4', 'p2', 'p1', 'p3', 'p2b'], null,
  array['{"queue": "prio", "priority": 4}', '{"queue": "prio", "priority": 2}', '{"queue": "prio", "priority": 1}',
        '{"queue": "prio", "priority": 3}', '{"queue": "prio", "priority": 2}']::jsonb[]);

select results_eq(
  $$select kind, priority from awa.claim_ready_runtime('prio', 2, null, '2030-01-01 12:00:00+00')$$,
  $$values ('p1', 1::smallint), ('p2', 2::smallint)$$,
  'a claim of 2 takes the priority 1 job, then the oldest priority 2 job');
select results_eq(
  $$select kind, priority from awa.claim_ready_runtime('prio', 10, null, '2030-01-01 12:00:01+00')$$,
  $$values ('p2b', 2::smallint), ('p3', 3::smallint), ('p4', 4::smallint)$$,
  'the next claim continues with priority 2, then 3, then 4');
select is_empty(
  $$select * from awa.claim_ready_runtime('prio', 10, null, '2030-01-01 12:00:02+00')$$,
  'nothing is left afterwards');

select * from finish();
rollback;
