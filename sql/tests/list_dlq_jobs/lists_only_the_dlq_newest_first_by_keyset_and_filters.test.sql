-- awa.list_dlq_jobs lists the DLQ's jobs alone, newest first, as
-- awa.list_jobs shows them (state failed, dlq true): not a failed job
-- outside the DLQ, however new; pages by the last id; filters by queue,
-- kind and tag (among the job's tags); a filter no job matches gives an
-- empty page. It writes nothing.
begin;
select plan(9);

create temp table d as
  select 1 as n, awa_test.dlq_job('dq', now() - interval '3 hours') as id
  union all select 2, (select id from awa_test.dlq_claim('other.k', '{}', '{"queue": "dq", "tags": ["t", "u"]}',
                                                         now() - interval '2 hours'))
  union all select 3, awa_test.dlq_job('dq2', now() - interval '1 hour');
-- Failed jobs outside the DLQ, newer than every DLQ job.
select awa_test.state_fixture();
create temp table plain as
  select c.id from awa_test.claim_one('plain.k', '{}', '{"queue": "plain"}', now()) as c,
                   awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                 array['fatal']) as f;

select cmp_ok((select min(id) from plain), '>', (select max(id) from d), 'the plain failed job is newer than the DLQ''s');
select results_eq($$select id, state, dlq from awa.list_dlq_jobs()$$,
                  $$select id, state, dlq from awa.list_jobs(p_states => '{failed}', p_limit => 1000) where dlq$$,
                  'every DLQ job, newest first, as awa.list_jobs shows it, and no other');
select is((select count(*) from awa.list_dlq_jobs() where id in (select id from d)), 3::bigint,
          'the three DLQ jobs of dq and dq2 are among them');
select results_eq($$select id from awa.list_dlq_jobs(p_limit => 1, p_after => (select id from d where n = 3))$$,
                  $$select id from d where n = 2$$, 'the page after job 3 starts with job 2 (keyset by id)');
select results_eq($$select id from awa.list_dlq_jobs(p_queue => 'dq')$$,
                  $$select id from d where n in (1, 2) order by id desc$$, 'queue dq: its two DLQ jobs');
select results_eq($$select id from awa.list_dlq_jobs(p_kind => 'other.k')$$, $$select id from d where n = 2$$,
                  'kind other.k');
select results_eq($$select id, tags from awa.list_dlq_jobs(p_tag => 'u', p_queue => 'dq')$$,
                  $$select id, '{t,u}'::text[] from d where n = 2$$, 'tag u (among t, u) and queue at once');
select is_empty($$select * from awa.list_dlq_jobs(p_queue => 'plain')$$, 'a queue with no DLQ job: no row');
select awa_test.writes_nothing($$select * from awa.list_dlq_jobs()$$, 'a listing writes nothing');

select * from finish();
rollback;
