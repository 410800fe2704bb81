-- awa.list_jobs filters by queue, kind and tag (a job holding the tag among
-- others), live and archived jobs alike, and by several at once; a filter no
-- job matches gives an empty page.
begin;
select plan(6);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select results_eq($$select id from awa.list_jobs(p_queue => 'arch')$$,
                  $$select id from awa.jobs where queue = 'arch' order by id desc$$,
                  'queue arch: its archived jobs');
select results_eq($$select id from awa.list_jobs(p_queue => 'qa', p_limit => 1000)$$,
                  $$select id from awa.jobs where queue = 'qa' order by id desc$$,
                  'queue qa: its live jobs in every state');
select results_eq($$select id from awa.list_jobs(p_kind => 'live.k')$$,
                  $$select id from ax where name like 'live_%' order by id desc$$,
                  'kind live.k');
select results_eq($$select id from awa.list_jobs(p_tag => 'a')$$,
                  $$select id from ax where name in ('arch_completed', 'arch_failed', 'live_2') order by id desc$$,
                  'tag a: archived (once, though listed twice in its tags) and live');
select results_eq($$select id from awa.list_jobs(p_tag => 'a', p_queue => 'arch', p_states => '{failed}')$$,
                  $$select id from ax where name = 'arch_failed'$$,
                  'tag, queue and state at once');
select is_empty($$select * from awa.list_jobs(p_kind => 'no.such.kind')$$, 'a kind no job has: no row');

select * from finish();
rollback;
