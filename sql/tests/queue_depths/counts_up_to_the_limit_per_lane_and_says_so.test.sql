-- A lane holding more available jobs than count_limit is counted up to the
-- limit, and available_capped says the queue holds at least that many.
begin;
select plan(3);

-- One lane: every job of the queue is in it.
select awa.configure_queue('qd', '{"enqueue_shards": 1}');
select awa.insert_jobs(array['k', 'k', 'k'], array['{}', '{}', '{}']::jsonb[],
                       array['{"queue": "qd"}', '{"queue": "qd"}', '{"queue": "qd"}']::jsonb[]);

select results_eq($$select available, available_capped from awa.queue_depths(2)$$,
  $$values (2::bigint, true)$$, 'a limit of 2 counts 2 of the 3 jobs and says it is capped');
select results_eq($$select available, available_capped from awa.queue_depths(3)$$,
  $$values (3::bigint, true)$$, 'a lane that reaches the limit exactly is reported capped');
select results_eq($$select available, available_capped from awa.queue_depths(4)$$,
  $$values (3::bigint, false)$$, 'a limit above the backlog counts it all, uncapped');

select * from finish();
rollback;
