-- A NULL token or a payload over 65536 bytes (as text) raises AW010 and
-- writes nothing, for a waiting or a parked job; the jobs still wait.
begin;
select plan(9);

create temp table w as select * from awa_test.claim_registered('cb_wait', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('cb_park', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from awa.complete_external(null, '{}')$$, 'AW010', 'awa: callback_id must not be null', 'a NULL token raises AW010'),
  ($$select * from w, awa.complete_external(w.callback_id, jsonb_build_object('blob', repeat('x', 65536)))$$,
   'AW010', 'awa: payload must be at most 65536 bytes as text, got 65548', 'a payload over 65536 bytes raises AW010 (waiting)'),
  ($$select * from p, awa.complete_external(p.callback_id, jsonb_build_object('blob', repeat('x', 65536)))$$,
   'AW010', 'awa: payload must be at most 65536 bytes as text, got 65548', 'a payload over 65536 bytes raises AW010 (parked)')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;
select is(awa_test.row_counts(), (select n from before), 'no awa table gained or lost a row');
select results_eq($$select state from awa.jobs order by id$$, $$values ('waiting_external'::awa.job_state), ('waiting_external')$$,
                  'both jobs still wait');
select is((select state from w, awa.complete_external(w.callback_id, jsonb_build_object('blob', repeat('x', 65536 - 13))) o),
          'completed'::awa.job_state, 'a payload of exactly 65536 bytes is accepted');

select * from finish();
rollback;
