-- A claim of one queue never takes jobs of another queue, even at a higher
-- priority.
begin;
select plan(3);

select * from awa.insert_job('mine', '{}', '{"queue": "qa", "priority": 4}');
select * from awa.insert_job('theirs', '{}', '{"queue": "qb", "priority": 1}');
select * from awa.insert_job('default_one');

select results_eq($$select kind, queue from awa.claim_ready_runtime('qa', 10, null, '2030-01-01 12:00:00+00')$$,
  $$values ('mine', 'qa')$$, 'claiming qa returns only the qa job');
select results_eq($$select j.kind, j.state from awa.jobs j where j.queue <> 'qa' order by j.kind$$,
  $$values ('default_one', 'available'::awa.job_state), ('theirs', 'available'::awa.job_state)$$,
  'the jobs of other queues stay available');
select is_empty($$select * from awa.claim_ready_runtime('QA', 10, null, '2030-01-01 12:00:00+00')$$,
  'queue names are case-sensitive: QA is another (empty) queue');

select * from finish();
rollback;
