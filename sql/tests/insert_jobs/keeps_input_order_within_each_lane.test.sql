-- Jobs of one (queue, priority) lane are claimed in input order (FIFO), also
-- when the batch interleaves lanes and across successive calls.
begin;
select plan(3);

create temp table inserted as
select row_number() over () as ord, * from awa.insert_jobs(
  array['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4'],
  null,
  array['{"queue": "fifo"}', '{"queue": "fifo", "priority": 3}', '{"queue": "fifo"}', '{"queue": "fifo", "priority": 3}',
        '{"queue": "fifo"}', '{"queue": "fifo", "priority": 3}', '{"queue": "fifo"}']::jsonb[]);
insert into inserted
select 7 + row_number() over (), * from awa.insert_jobs(array['a5', 'a6'], null, array['{"queue": "fifo"}', '{"queue": "fifo"}']::jsonb[]);

create temp table claimed as
select row_number() over () as ord, * from awa.claim_ready_runtime('fifo', 100, null, '2030-01-01 12:00:00+00');

select results_eq(
  $$select kind from claimed where priority = 2 order by ord$$,
  array['a1', 'a2', 'a3', 'a4', 'a5', 'a6'],
  'the priority 2 lane is claimed in input order, across both calls');
select results_eq(
  $$select kind from claimed where priority = 3 order by ord$$,
  array['b1', 'b2', 'b3'],
  'the priority 3 lane is claimed in input order');
select results_eq(
  $$select c.id from claimed c where c.priority = 2 order by c.ord$$,
  $$select i.id from inserted i where i.priority = 2 order by i.ord$$,
  'claim order is the order of the returned ids');

select * from finish();
rollback;
