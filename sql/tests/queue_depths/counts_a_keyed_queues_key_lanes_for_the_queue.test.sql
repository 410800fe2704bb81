-- A queue with a concurrency key (flow control) holds its jobs in a lane per
-- key (awa.key_lanes): queue_depths counts them for the queue, one row, as
-- queue_counts does, never as queues of their own.
begin;
select plan(3);

select awa.configure_queue('kdq', '{"concurrency": {"key": "args.tenant", "limit": 2}}');
select awa.insert_jobs(array_fill('k'::text, ARRAY[5]),
                       ARRAY(select jsonb_build_object('tenant', 't' || (n % 3)) from generate_series(1, 5) n),
                       array_fill('{"queue": "kdq"}'::jsonb, ARRAY[5]));

select ok((select count(distinct k.lane_id) from awa.key_lanes k where k.queue = 'kdq') >= 3,
          'fixture: the queue''s jobs are in lanes of their keys');
select results_eq($$select queue, available from awa.queue_depths() where queue like 'kdq%'$$,
                  $$values ('kdq'::text, 5::bigint)$$, 'one row for the queue, counting every key lane''s jobs');
select results_eq($$select available from awa.queue_depths() where queue = 'kdq'$$,
                  $$select available from awa.queue_counts('kdq')$$, 'the same count as queue_counts');

select * from finish();
rollback;
