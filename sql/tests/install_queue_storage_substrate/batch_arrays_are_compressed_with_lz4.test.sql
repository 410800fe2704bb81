-- The id arrays of the claim and completion batches use lz4 (this server has
-- it): the parents, so that new children take it, and every child; a child
-- created again after a drop takes it from its parent, and a child whose
-- setting was reset gets it back from the next install call.
begin;
select plan(4);

select is(
  (select count(*)::int from pg_attribute a
   where a.attrelid in ('awa.claim_batches'::regclass, 'awa.done_completions'::regclass)
     and a.attname in ('job_ids', 'run_leases', 'lane_ids', 'lane_seqs') and a.attcompression = 'l'),
  8, 'the four arrays of both parents use lz4');
select is(
  (select count(*)::int from pg_attribute a join pg_inherits i on i.inhrelid = a.attrelid
   where i.inhparent in ('awa.claim_batches'::regclass, 'awa.done_completions'::regclass)
     and a.attname in ('job_ids', 'run_leases', 'lane_ids', 'lane_seqs')
     and a.attcompression is distinct from 'l'),
  0, 'no child of either keeps another method');

drop table awa.done_completions_3;
alter table awa.claim_batches_2 alter column lane_seqs set compression pglz;
select lives_ok($$select * from awa.install_queue_storage_substrate()$$, 'install runs again');
select is(
  (select array_agg(a.attrelid::regclass::text || '.' || a.attname::text order by 1) from pg_attribute a
   where a.attrelid in ('awa.done_completions_3'::regclass, 'awa.claim_batches_2'::regclass)
     and a.attname in ('job_ids', 'run_leases', 'lane_ids', 'lane_seqs')
     and a.attcompression is distinct from 'l'),
  null, 'the recreated child and the reset column use lz4 again');

select * from finish();
rollback;
