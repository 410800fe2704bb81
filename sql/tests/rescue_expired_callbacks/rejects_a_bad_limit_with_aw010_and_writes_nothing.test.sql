-- A limit outside 1..100000 (or NULL) raises AW010 and rescues nothing,
-- though a parked job and a waiting attempt have timed out.
begin;
select plan(8);

create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 minute');
create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 minute');

select t.* from (values
  ($$select * from awa.rescue_expired_callbacks(0, '2030-01-01 12:05:00+00')$$, 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'limit 0 raises AW010'),
  ($$select * from awa.rescue_expired_callbacks(100001, '2030-01-01 12:05:00+00')$$, 'AW010', NULL, 'limit 100001 raises AW010'),
  ($$select * from awa.rescue_expired_callbacks(null, '2030-01-01 12:05:00+00')$$, 'AW010', 'awa: limit must be between 1 and 100000, got null', 'a NULL limit raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;
select results_eq($$select state from awa.jobs order by id$$, $$values ('waiting_external'::awa.job_state), ('waiting_external')$$,
                  'both jobs still wait');
select is((select count(*) from awa.rescue_expired_callbacks(100000, '2030-01-01 12:05:00+00')), 2::bigint,
          'limit 100000 is accepted');

select * from finish();
rollback;
