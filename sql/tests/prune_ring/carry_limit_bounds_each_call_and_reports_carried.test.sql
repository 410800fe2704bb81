-- prune_ring moves at most carry_limit available jobs per call. While some
-- remain it reports carried (how many moved, how many remain, counted up to
-- the limit) and truncates nothing; the call that moves the last ones also
-- truncates the slot. Lane order is unchanged.
begin;
select plan(6);

create temp table j as select * from awa.insert_jobs(array_fill('prune.k'::text, array[5]), null,
                                                      array_fill('{"queue": "nq"}'::jsonb, array[5]));
create temp table lanes as select job_id, lane_id, lane_seq from awa.ready_entries;
select * from awa.rotate_ring('queue', now());

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 2)$$,
                  $$values ('carried'::text, 0, 'moved 2 available jobs to slot 1, at least 2 remain'::text)$$,
                  'first call: 2 moved, at least 2 remain');
select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 2)$$,
                  $$values ('carried'::text, 0, 'moved 2 available jobs to slot 1, 1 remain'::text)$$,
                  'second call: 2 moved, 1 remains');
select results_eq($$select (select count(*)::int from awa.ready_entries_0), (select count(*)::int from awa.ready_entries_1)$$,
                  $$values (1, 4)$$, 'slot 0 is not truncated while a job remains');
select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 2)$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0 after moving 1 available jobs to slot 1'::text)$$,
                  'third call: the last job moves and slot 0 is truncated');
select set_eq($$select job_id, lane_id, lane_seq from awa.ready_entries_1$$, $$select * from lanes$$,
              'all five jobs are in slot 1 at their lane positions');
select results_eq($$select id from awa.claim_ready_runtime('nq', 10, null, now())$$,
                  $$select job_id from lanes order by lane_seq$$, 'they are claimed once each, in lane order');

select * from finish();
rollback;
