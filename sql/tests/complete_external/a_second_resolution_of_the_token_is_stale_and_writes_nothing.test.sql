-- Exactly one resolution of a token applies: after complete_external, a
-- second complete, a fail, a retry and a resume of the same token are stale
-- (naming the job when the token still names its attempt) and write nothing;
-- the job stays completed. Parked and waiting in sequence alike.
begin;
select plan(18);

create temp table w as select * from awa_test.claim_registered('cb_wait', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('cb_park', '2030-01-01 12:00:00+00');
select state from w, awa.complete_external(w.callback_id, '{"first": true}');
select state from p, awa.complete_external(p.callback_id, '{"first": true}');

create function pg_temp.stale_again(p_name text, p_token uuid) returns setof text language plpgsql as $f$
declare
  v_call text;
begin
  foreach v_call in array array[format('select outcome, state from awa.complete_external(%L, ''{"second": true}'')', p_token),
                                format('select outcome, state from awa.fail_external(%L, ''late'')', p_token),
                                format('select outcome, state from awa.retry_external(%L, ''late'')', p_token),
                                format('select outcome, state from awa.resume_external(%L, ''{}'')', p_token)] loop
    return next results_eq(v_call, $q$values ('stale'::awa.finalize_outcome, null::awa.job_state)$q$,
                           p_name || ': stale: ' || split_part(v_call, '(', 1));
    return next awa_test.writes_nothing(v_call, p_name || ': writes nothing: ' || split_part(v_call, '(', 1));
  end loop;
end $f$;

select pg_temp.stale_again('waiting', callback_id) from w;
select pg_temp.stale_again('parked', callback_id) from p;
select results_eq($$select state, metadata from awa.jobs where id in ((select id from w), (select id from p))$$,
                  $$values ('completed'::awa.job_state, '{"callback_result": {"first": true}}'::jsonb),
                           ('completed'::awa.job_state, '{"callback_result": {"first": true}}'::jsonb)$$,
                  'both jobs stay completed with the first payload');
select is((select count(*) from awa.done_entries), 2::bigint, 'one completed snapshot per job');

select * from finish();
rollback;
