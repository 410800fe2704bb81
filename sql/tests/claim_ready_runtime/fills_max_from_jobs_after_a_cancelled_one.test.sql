-- Jobs cancelled while available do not use up the claim: with available jobs
-- behind a cancelled one, a claim still returns up to max of them. (Each
-- assertion uses its own queue so that one outcome does not hide another.)
begin;
select plan(4);

-- Lane t1: a(cancelled) b c. A claim of 1 must return b.
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "t1"}'::jsonb, array[3]));
select * from awa.cancel_job((select id from awa.jobs where queue = 't1' and kind = 'a'), null, '2030-01-01 11:00:00+00');
select results_eq(
  $$select kind from awa.claim_ready_runtime('t1', 1, null, '2030-01-01 12:00:00+00')$$,
  array['b'],
  'a claim of 1 behind a cancelled head job returns the next available job');

-- Lane t2: a(cancelled) b c d. A claim of 2 must return b and c.
select * from awa.insert_jobs(array['a', 'b', 'c', 'd'], null, array_fill('{"queue": "t2"}'::jsonb, array[4]));
select * from awa.cancel_job((select id from awa.jobs where queue = 't2' and kind = 'a'), null, '2030-01-01 11:00:00+00');
select results_eq(
  $$select kind from awa.claim_ready_runtime('t2', 2, null, '2030-01-01 12:00:00+00')$$,
  array['b', 'c'],
  'a claim of 2 behind a cancelled head job returns the next two available jobs');

-- Queue t3: priority 1 lane holds only a cancelled job, priority 2 lane holds x.
select * from awa.insert_job('p1', '{}', '{"queue": "t3", "priority": 1}');
select * from awa.insert_job('x', '{}', '{"queue": "t3", "priority": 2}');
select * from awa.cancel_job((select id from awa.jobs where queue = 't3' and kind = 'p1'), null, '2030-01-01 11:00:00+00');
select results_eq(
  $$select kind from awa.claim_ready_runtime('t3', 1, null, '2030-01-01 12:00:00+00')$$,
  array['x'],
  'a claim of 1 whose higher-priority lane holds only a cancelled job returns the next lane''s job');

-- Lane t4: a(cancelled) b. A claim larger than the lane returns the rest.
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "t4"}'::jsonb, array[2]));
select * from awa.cancel_job((select id from awa.jobs where queue = 't4' and kind = 'a'), null, '2030-01-01 11:00:00+00');
select results_eq(
  $$select kind from awa.claim_ready_runtime('t4', 5, null, '2030-01-01 12:00:00+00')$$,
  array['b'],
  'a claim of 5 over a lane whose head is cancelled returns the rest of the lane');

select * from finish();
rollback;
