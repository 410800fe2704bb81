-- Later calls of the same attempt replace its deadline, earlier or later, in
-- place: no second lease, no new row. A progress write of the attempt keeps
-- the deadline (and stays a HOT update), and a deadline write keeps the
-- checkpoint.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 15:00:00+00',
                                                '2030-01-01 12:00:02+00');
create temp table before as select awa_test.row_counts() as n;

select results_eq(
  $$select s.outcome::text, s.deadline_at from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                                        '2030-01-01 13:00:00+00', '2030-01-01 12:00:03+00') s
    union all
    select s.outcome::text, s.deadline_at from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                                        '2030-01-02 12:00:00+00', '2030-01-01 12:00:04+00') s$$,
  $$values ('applied', '2030-01-01 13:00:00+00'::timestamptz), ('applied', '2030-01-02 12:00:00+00')$$,
  'an earlier and then a later deadline are both applied');
select is(awa_test.changed((select n from before), awa_test.row_counts()), '{}'::jsonb, 'no row is added');
create temp table hot_before as
select n_tup_hot_upd as n from pg_stat_xact_user_tables where schemaname = 'awa' and relname = 'attempt_state';
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}', '2030-01-01 12:00:05+00');
select is((select s.n_tup_hot_upd - b.n from pg_stat_xact_user_tables s, hot_before b
           where s.schemaname = 'awa' and s.relname = 'attempt_state'), 1::bigint,
          'the progress write, which leaves the indexed deadline as it is, is a HOT update');
select results_eq($$select deadline_at, progress from awa.attempt_state$$,
                  $$values ('2030-01-02 12:00:00+00'::timestamptz, '{"step": 2}'::jsonb)$$,
                  'the last deadline stays through a progress write, beside the checkpoint');
select is((select count(*) from awa.leases), 1::bigint, 'the attempt has one lease');
select results_eq($$select progress, updated_at from awa.job_progress((select id from c))$$,
                  $$values ('{"step": 2}'::jsonb, '2030-01-01 12:00:05+00'::timestamptz)$$,
                  'the checkpoint is the last progress write');

select * from finish();
rollback;
