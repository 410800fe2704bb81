-- When another session holds the producer lock of every shard lane of the
-- job's (queue, priority), awa._append_one returns false having taken no lock
-- and written nothing, so that awa._append_ready adds a shard or waits; once
-- a lane is free it takes that one.
-- Fixture: the queue's lanes are created (awa._resolve_lanes, no producer
-- lock) and cached by hand, in the entry's format (awa._lane_cache_key).
begin;
select plan(7);

create temp table l as select * from awa._resolve_lanes('one_held', 2::smallint);
select set_config(awa._lane_cache_key('one_held', 2::smallint),
                  concat_ws('|', extract(epoch from now()) + 5, 'one_held', array_to_string(l.ids, ','),
                            array_to_string(l.seqs::oid[], ','), l.shards, '', ''), false)
from l;
create temp table j as
select awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{}', '{"queue": "one_held"}', now()) as b;

select awa_test.connect_other();
-- The other session sees no lane row (uncommitted), but locks its id.
select lives_ok(
  format($$select dblink_exec('awa_other', 'do $d$ begin perform pg_advisory_lock(%s, %s); end $d$')$$,
         awa._lock_key('lane_producer'), (select ids[1] from l)),
  'the other session holds the producer lock of the queue''s only lane (fixture)');

select is((select awa._append_one(b) from j), false, 'every shard lane held: false');
select is((select count(*) from pg_locks
           where pid = pg_backend_pid() and locktype = 'advisory' and classid = awa._lock_key('lane_producer')::oid),
          0::bigint, 'and no producer lock taken');
select is((select count(*) from awa.ready_entries where queue = 'one_held'), 0::bigint, 'and nothing written');

select dblink_exec('awa_other', format('do $d$ begin perform pg_advisory_unlock(%s, %s); end $d$',
                                       awa._lock_key('lane_producer'), (select ids[1] from l)));
select is((select awa._append_one(b) from j), true, 'the lane free again: appended');
select is((select lane_id from awa.ready_entries where queue = 'one_held'), (select ids[1] from l), 'in that lane');

select dblink_disconnect('awa_other');
select * from finish();
rollback;
