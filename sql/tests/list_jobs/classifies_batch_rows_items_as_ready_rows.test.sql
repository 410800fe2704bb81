-- awa.list_jobs and awa.get_job classify a batch row's items as ready rows:
-- above the lane's claim cursor, available unless tombstoned; at or below
-- it, completed when a completion batch holds the attempt, skipped when
-- another plane holds the job (the DLQ here: listed once, there), running
-- while a claim batch holds the attempt open, else not listed. The claim
-- state is written as a claim writes it (a cursor mark, a claim batch, a
-- completion batch), since nothing claims from the batch plane yet.
begin;
select plan(9);

create temp table b as
select awa_test.batch_row(array_fill('lc.k'::text, array[7]),
                          array(select jsonb_build_object('n', g) from generate_series(1, 7) as g),
                          array_fill('{"queue": "lc"}'::jsonb, array[7])) as ids;
create temp table r as select x.* from awa.ready_batches x where x.queue = 'lc';
create temp table rr as select x as row from awa.ready_batches x where x.queue = 'lc';
-- Items 1 to 5 claimed (the cursor at item 5); 1 completed, 2 and 5 running,
-- 3 dead-lettered, 4 held by nothing; 6 available, 7 tombstoned.
insert into awa.cursor_marks select awa._current_slot('cursor'), r.lane_id, r.first_seq + 4 from r;
insert into awa.claim_batches
select awa._current_slot('claim'), 900001, awa._current_slot('claim'), r.ready_slot, 'lc', now() + interval '1 minute',
       null, null, array[b.ids[2], b.ids[5]], '{1,1}', array[r.lane_id, r.lane_id], array[r.first_seq + 1, r.first_seq + 4]
from r, b;
insert into awa.done_completions
select r.ready_slot, 900002, 'lc', now() + interval '2 minutes', array[b.ids[1]], '{1}', array[r.lane_id],
       array[r.first_seq]
from r, b;
insert into awa.dlq_entries
select i.job_id, 1, 1, i.max_attempts, i.priority, i.queue, i.kind, i.args, i.tags, i.metadata, '[{"error": "e"}]',
       i.created_at, i.run_at, now() + interval '3 minutes'
from rr cross join lateral awa._batch_items(rr.row) as i where i.job_id = (select ids[3] from b);
insert into awa.ready_tombstones select r.ready_slot, r.lane_id, r.first_seq + 6, b.ids[7], now() from r, b;

create temp table want (k int, state awa.job_state, attempt int, run_lease bigint, claimed_at timestamptz,
                        finalized_at timestamptz, dlq boolean);
insert into want values (6, 'available', 0, 0, null, null, false),
                        (5, 'running', 1, 1, now() + interval '1 minute', null, false),
                        (3, 'failed', 1, 1, null, now() + interval '3 minutes', true),
                        (2, 'running', 1, 1, now() + interval '1 minute', null, false),
                        (1, 'completed', 1, 1, null, now() + interval '2 minutes', false);

select results_eq(
  $$select id, state, attempt, run_lease, claimed_at, finalized_at, dlq, args from awa.list_jobs(p_queue => 'lc')$$,
  $$select (select ids[k] from b), state, attempt, run_lease, claimed_at, finalized_at, dlq,
           jsonb_build_object('n', k) from want order by k desc$$,
  'each item in its state; the tombstoned and the unheld ones not listed, the dead-lettered once (from the DLQ)');
select results_eq(
  $$select g.id, g.state, g.attempt, g.run_lease, g.claimed_at, g.finalized_at, g.dlq
    from b cross join lateral unnest(b.ids) as u (id) cross join lateral awa.get_job(u.id) as g order by g.id desc$$,
  $$select (select ids[k] from b), state, attempt, run_lease, claimed_at, finalized_at, dlq from want order by k desc$$,
  'get_job of each id: the same rows, none for the tombstoned and the unheld items');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_states => '{available}')$$,
                  $$select ids[6] from b$$, 'available: the item above the cursor');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_states => '{running}')$$,
                  $$select unnest(array[ids[5], ids[2]]) from b$$, 'running: the items a claim holds open');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_states => '{completed}')$$,
                  $$select ids[1] from b$$, 'completed: the item a completion batch holds');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_states => '{completed}',
                                                 p_from => now() + interval '90 seconds',
                                                 p_to => now() + interval '150 seconds')$$,
                  $$select ids[1] from b$$, 'completed in a time range around its completion');
select is_empty($$select 1 from awa.list_jobs(p_queue => 'lc', p_states => '{completed}',
                                              p_from => now() + interval '150 seconds')$$,
                'completed in a time range after its completion: none');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_states => '{available,running}', p_limit => 2)$$,
                  $$select unnest(array[ids[6], ids[5]]) from b$$,
                  'a page of two across the cursor, newest first');
select results_eq($$select id from awa.list_jobs(p_queue => 'lc', p_after => (select ids[5] from b), p_limit => 2)$$,
                  $$select unnest(array[ids[3], ids[2]]) from b$$,
                  'the next page, past the unheld item');

select * from finish();
rollback;
