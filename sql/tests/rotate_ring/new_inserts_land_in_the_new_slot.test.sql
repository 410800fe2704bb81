-- After a rotation, inserts, promotions and DLQ retries write ready rows into
-- the new current slot, and claims land in the claim ring's current slot.
begin;
select plan(5);

create temp table a as select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');
create temp table s as
select * from awa.insert_job('rotate.k', '{}', jsonb_build_object('queue', 'oq', 'run_at', now() + interval '10 seconds'));
select * from awa.rotate_ring('queue', now());
create temp table b as select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');

select is((select ready_slot from awa.ready_entries where job_id = (select id from a)), 0,
          'the job inserted before the rotation is in slot 0');
select is((select ready_slot from awa.ready_entries where job_id = (select id from b)), 1,
          'the job inserted after the rotation is in slot 1');

select * from awa.promote_due_jobs(100, now() + interval '11 seconds');
select is((select ready_slot from awa.ready_entries where job_id = (select id from s)), 1,
          'a job promoted after the rotation is in slot 1');

create temp table c as select * from awa.claim_ready_runtime('oq', 10, null, now() + interval '12 seconds');
select * from awa.rotate_ring('claim', now() + interval '12 seconds');
select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');
create temp table c2 as select * from awa.claim_ready_runtime('oq', 10, null, now() + interval '13 seconds');

select is((select array_agg(distinct claim_slot) from c), array[0], 'claims before the claim rotation use claim slot 0');
select is((select array_agg(distinct claim_slot) from c2), array[1], 'claims after the claim rotation use claim slot 1');

select * from finish();
rollback;
