-- awa._ring_next_slot(ring, slot, step): the next slot round the ring
-- (step 1) or the previous one (step -1) that is not held; NULL when every
-- other slot is held. Other rings' held slots do not count.
begin;
select plan(6);

select is(awa._ring_next_slot('queue', 15), 0, 'after slot 15 comes slot 0');
select is(awa._ring_next_slot('queue', 0, -1), 15, 'before slot 0 comes slot 15');
insert into awa.ring_held_slots (ring, slot, held_at) values ('queue', 0, now()), ('queue', 1, now());
select is(awa._ring_next_slot('queue', 15), 2, 'held slots 0 and 1 are passed over');
select is(awa._ring_next_slot('queue', 2, -1), 15, 'going back as well');
select is(awa._ring_next_slot('claim', 15), 0, 'the queue ring''s held slots do not count for the claim ring');
insert into awa.ring_held_slots (ring, slot, held_at) select 'queue', s, now() from generate_series(2, 15) s where s <> 7;
select is(awa._ring_next_slot('queue', 7), null, 'every other slot held: none');

select * from finish();
rollback;
