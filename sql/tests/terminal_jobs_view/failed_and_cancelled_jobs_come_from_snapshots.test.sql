-- Failed and cancelled jobs appear in awa.terminal_jobs from their terminal
-- snapshots, with attempt, run_lease and errors.
begin;
select plan(2);

create temp table j (name text, id bigint);
insert into j select 'failed', id from awa.insert_job('term.k', '{}', '{"queue": "tq"}');
insert into j select 'cancelled', id from awa.insert_job('term.k', '{}', '{"queue": "tq"}');
create temp table c as select * from awa.claim_ready_runtime('tq', 2, null, now());
select * from awa.fail_jobs(array[(select id from j where name = 'failed')],
                            array(select run_lease from c where id = (select id from j where name = 'failed')),
                            array(select claim_slot from c where id = (select id from j where name = 'failed')),
                            array(select receipt_id from c where id = (select id from j where name = 'failed')),
                            array['handler exploded'], now());
select * from awa.cancel_jobs(array[(select id from j where name = 'cancelled')],
                              array(select run_lease from c where id = (select id from j where name = 'cancelled')),
                              array(select claim_slot from c where id = (select id from j where name = 'cancelled')),
                              array(select receipt_id from c where id = (select id from j where name = 'cancelled')),
                              array['shutting down'], now());

select bag_eq(
  $$select id, state, attempt, run_lease, errors -> -1 ->> 'error' from awa.terminal_jobs$$,
  $$values ((select id from j where name = 'failed'), 'failed'::awa.job_state, 1, 1::bigint, 'handler exploded'),
           ((select id from j where name = 'cancelled'), 'cancelled'::awa.job_state, 1, 1::bigint, 'shutting down')$$,
  'the failed and the cancelled job are listed with attempt, run_lease and error');
select is((select count(*)::int from awa.done_entries), 2, 'both come from done_entries snapshots');

select * from finish();
rollback;
