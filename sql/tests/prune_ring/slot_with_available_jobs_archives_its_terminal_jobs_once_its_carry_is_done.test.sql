-- A sealed slot holding available jobs besides finished ones is archived under
-- the locks, by the call that carries its last available job and truncates
-- it: a call that only carries (outcome carried) archives nothing, and every
-- job shows once throughout, the finished ones from the ring, then from the
-- archive.
begin;
select plan(7);

select * from awa.insert_jobs(array['k', 'k', 'k', 'k'], null,
                              array['{"queue": "mq"}', '{"queue": "mq"}', '{"queue": "mq"}', '{"queue": "mq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('mq', 2, null, now());
select * from awa.complete_jobs(array(select id from c), array(select run_lease from c), array(select claim_slot from c),
                                array(select receipt_id from c), now());
select * from awa.rotate_ring('queue', now());

select is((select outcome from awa.prune_ring('queue', 50, 0, 1)), 'carried', 'the first call carries one available job');
select is((select count(*)::int from awa_test.archived_jobs), 0, 'and archives nothing');
select results_eq($$select state::text, count(*)::int from awa.jobs where queue = 'mq' group by 1 order by 1$$,
                  $$values ('available'::text, 2), ('completed', 2)$$, 'each job shows once');

select is((select outcome from awa.prune_ring('queue', 50, 0, 1)), 'pruned', 'the second carries the last and truncates');
select results_eq($$select job_id from awa_test.archived_jobs order by job_id$$, $$select id from c order by id$$,
                  'the completed jobs are archived');
select results_eq($$select state::text, count(*)::int from awa.jobs where queue = 'mq' group by 1 order by 1$$,
                  $$values ('available'::text, 2), ('completed', 2)$$, 'each job still shows once');
select is((select count(*)::int from awa.ready_entries_0), 0, 'slot 0 is empty');

select * from finish();
rollback;
