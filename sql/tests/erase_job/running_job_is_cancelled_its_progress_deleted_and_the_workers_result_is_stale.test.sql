-- Erasing a running job cancels its attempt first (nothing goes on running
-- with the erased args as far as the queue knows: the worker's late complete
-- is stale), deletes its progress checkpoint, and with erase_errors clears
-- its errors; without it the errors are kept.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('erase.k', '{"secret": "pii-run"}', '{"queue": "er"}', now());
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"done": "pii-run"}');

select results_eq(
  $$select e.plane, e.rows from c, awa.erase_job(c.id, true) as e$$,
  $$values ('ready'::text, 1::bigint), ('done', 1), ('progress', 1)$$,
  'the running job is cancelled, then erased in its ready row and snapshot; its progress is deleted');
select results_eq(
  $$select x.state, x.args, x.errors from c, awa.job(c.id) as x$$,
  $$values ('cancelled'::awa.job_state, '{}'::jsonb, null::jsonb)$$,
  'it is cancelled, with empty args and (erase_errors) no errors');
select is((select count(*) from c, awa.attempt_state s where s.job_id = c.id), 0::bigint, 'no checkpoint is left');
select results_eq(
  $$select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])$$,
  $$values ('stale'::awa.finalize_outcome)$$, 'the worker''s late complete is stale');

-- Without erase_errors the errors (here the cancel's reason) are kept.
create temp table d as select * from awa_test.claim_one('erase.k', '{"secret": "pii-run2"}', '{"queue": "er"}', now());
select count(*) from d, awa.erase_job(d.id);
select is((select jsonb_array_length(x.errors) from d, awa.job(d.id) as x), 1, 'without erase_errors the errors are kept');
select is((select x.errors -> 0 ->> 'error' from d, awa.job(d.id) as x), 'cancelled to erase its data',
          'the kept error says why the job was cancelled');

select * from finish();
rollback;
