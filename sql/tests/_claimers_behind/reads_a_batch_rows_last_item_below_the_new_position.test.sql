-- awa._claimers_behind reads both ready planes: a batch row's last item
-- below `before` (the row with the greatest first_seq below it) is the
-- lane's highest job when no per-row job lies above it, so claimers are
-- behind while it is above the cursor (a claim that stopped in the row's
-- middle included), and not once they took it; a per-row job after the row
-- is the highest then.
begin;
select plan(6);

select awa_test.batch_row(array_fill('bb.k'::text, array[3]), null, array_fill('{"queue": "bb"}'::jsonb, array[3]));
create temp table b as select r.ready_slot, r.lane_id, r.first_seq, r.n from awa.ready_batches r where r.queue = 'bb';
create function pg_temp.behind(p_before bigint) returns boolean language sql as
$$ select awa._claimers_behind((select ready_slot from b), (select lane_id from b), p_before) $$;

select is(pg_temp.behind((select first_seq + 1024 from b)), true,
          'a lane never claimed, its batch row above the floor: true');
select is(pg_temp.behind((select first_seq from b)), false, 'nothing below the row''s first position: false');
select is((select count(*)::int from awa.claim_ready_runtime('bb', 2, gen_random_uuid())), 2, 'two items claimed (fixture)');
select is(pg_temp.behind((select first_seq + 1024 from b)), true,
          'the mark in the row''s middle, its last item above it: true');
select count(*) from awa.claim_ready_runtime('bb', 1, gen_random_uuid());
select is(pg_temp.behind((select first_seq + 1024 from b)), false, 'the last item claimed: false');
select * from awa.insert_job('bb.k', '{}', '{"queue": "bb"}');
select is(pg_temp.behind((select max(lane_seq) + 1 from awa.ready_entries where queue = 'bb')), true,
          'a per-row job after the row is the highest: true');

select * from finish();
rollback;
