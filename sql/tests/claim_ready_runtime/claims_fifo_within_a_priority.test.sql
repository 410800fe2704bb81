-- Within one priority, jobs are claimed in insertion order, also when they
-- come from separate insert calls and are claimed one at a time.
begin;
select plan(4);

create temp table inserted (ord serial, id bigint);
insert into inserted (id) select id from awa.insert_job('j1', '{}', '{"queue": "fifo_q"}');
insert into inserted (id) select id from awa.insert_jobs(array['j2', 'j3'], null, array['{"queue": "fifo_q"}', '{"queue": "fifo_q"}']::jsonb[]);
insert into inserted (id) select id from awa.insert_job('j4', '{}', '{"queue": "fifo_q"}');

select results_eq($$select kind from awa.claim_ready_runtime('fifo_q', 1, null, '2030-01-01 12:00:00+00')$$,
  array['j1'], 'the first claim gets the oldest job');
select results_eq($$select kind from awa.claim_ready_runtime('fifo_q', 1, null, '2030-01-01 12:00:01+00')$$,
  array['j2'], 'the second claim gets the next one');
select results_eq($$select kind from awa.claim_ready_runtime('fifo_q', 2, null, '2030-01-01 12:00:02+00')$$,
  array['j3', 'j4'], 'a claim of 2 gets the remaining two in order');
select results_eq(
  $$select j.id from awa.jobs j join inserted i on i.id = j.id order by j.claimed_at, i.ord$$,
  $$select id from inserted order by ord$$,
  'claim times follow insertion order');

select * from finish();
rollback;
