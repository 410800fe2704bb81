-- cancel_job takes ACCESS SHARE on every cursor slot before it reads the
-- ready rows (the order claims and queue-ring prune use: docs/storage.md,
-- "Locks"). While another session holds a cursor slot exclusively (as a
-- cursor-ring prune does), cancel_job waits at that lock, holding no lock on
-- a ready child, and writes nothing. The other session is opened with dblink.
begin;
select plan(4);

-- An available job written as insert_job writes it, without its notify rule's
-- cursor read: this transaction must hold no lock on the marks (fixture).
create temp table j as
select nextval('awa.job_id_seq') as id, l.ids[1] as lane_id, nextval(l.seqs[1]) as lane_seq
from awa._resolve_lanes('cw', 2::smallint) as l;
insert into awa.ready_entries (ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
                               queue, kind, args, tags, metadata, errors, created_at, run_at)
select 0, j.lane_id, j.lane_seq, j.id, 0, 0, 25, 2, 'cw', 'a', '{}', '{}', '{}', null, now(), now() from j;

select * from awa_test.other_session_locks('cursor_marks_1', 'access exclusive', null,
  'the second session holds cursor slot 1 exclusively, as cursor-ring prune does (fixture)');

create function pg_temp.cancel_waits_at() returns text language plpgsql as $f$
declare
  v_ctx text;
begin
  set local lock_timeout = '200ms';
  perform * from awa.cancel_job((select id from j));
  return 'applied without waiting';
exception when lock_not_available then
  get stacked diagnostics v_ctx = pg_exception_context;
  return substring(v_ctx from 'SQL statement "([^"]*)"');
end
$f$;

select is(pg_temp.cancel_waits_at(), 'LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE',
          'cancel_job waits at the cursor ring''s share lock, before it reads a ready row');
reset lock_timeout;
select is((select count(*)::int from awa.ready_tombstones), 0, 'and wrote no tombstone');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select * from finish();
rollback;
