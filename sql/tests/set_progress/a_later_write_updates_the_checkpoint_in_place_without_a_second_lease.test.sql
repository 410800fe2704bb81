-- Later writes of the same attempt update its checkpoint in place: no second
-- lease, no new row, one UPDATE each.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sp"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
create temp table before as select awa_test.row_counts() as n, awa_test.updates_of('attempt_state') as u;

select results_eq(
  $$select outcome::text from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}', '2030-01-01 12:00:02+00')
    union all
    select outcome::text from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 3}', '2030-01-01 12:00:03+00')$$,
  $$values ('applied'), ('applied')$$, 'both later writes are applied');
select is(awa_test.changed((select n from before), awa_test.row_counts()), '{}'::jsonb, 'no row is added');
select is(awa_test.updates_of('attempt_state') - (select u from before), 2::bigint, 'each write is one update');
select results_eq($$select progress, updated_at from awa.job_progress((select id from c))$$,
                  $$values ('{"step": 3}'::jsonb, '2030-01-01 12:00:03+00'::timestamptz)$$,
                  'the checkpoint is the last write');

select * from finish();
rollback;
