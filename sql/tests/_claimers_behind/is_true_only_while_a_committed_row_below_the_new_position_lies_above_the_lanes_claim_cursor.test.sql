-- awa._claimers_behind(queue_slot, lane, before), the notify rule's test: true
-- only while the lane's highest row below `before` in the queue slot lies above
-- the lane's claim cursor (false: notify). The cursor is the newest mark in the
-- current cursor slot, or, for a lane with none there (never claimed, or not
-- since the cursor ring turned), the whole cursor. Its per-slot prepared
-- statement is prepared again after DEALLOCATE ALL.
begin;
select plan(8);

select awa.insert_job('k', '{}', '{"queue": "cb"}') from generate_series(1, 3);
create temp table r as
select lane_id, lane_seq, ready_slot from awa.ready_entries where queue = 'cb' order by lane_seq;
create function pg_temp.behind(p_before bigint) returns boolean language sql as
$$ select awa._claimers_behind((select min(ready_slot) from r), (select min(lane_id) from r), p_before) $$;

select is(pg_temp.behind((select max(lane_seq) + 1 from r)), true,
          'a lane never claimed: its floor lies below the third row: true');
select is(pg_temp.behind((select min(lane_seq) from r)), false,
          'no row of the lane below the first one: false');

select is((select count(*) from awa.claim_ready_runtime('cb', 1, gen_random_uuid())), 1::bigint,
          'the first job is claimed (fixture)');
select is(pg_temp.behind((select max(lane_seq) + 1 from r)), true,
          'the newest mark (the first row) lies below the third row: true');

deallocate all;
select is(pg_temp.behind((select max(lane_seq) + 1 from r)), true,
          'after DEALLOCATE ALL the statement is prepared again and answers the same');

select is((select outcome from awa.rotate_ring('cursor')), 'rotated', 'the cursor ring rotates (fixture)');
select is(pg_temp.behind((select max(lane_seq) + 1 from r)), true,
          'with its mark in the sealed cursor slot the lane is still behind: true');

select count(*) from awa.claim_ready_runtime('cb', 2, gen_random_uuid());
select is(pg_temp.behind((select max(lane_seq) + 1 from r)), false,
          'the claimers took the third row (a mark in the current cursor slot): false');

select * from finish();
rollback;
