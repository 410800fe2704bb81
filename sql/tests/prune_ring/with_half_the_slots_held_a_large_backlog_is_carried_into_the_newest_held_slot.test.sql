-- At most half of the queue ring's slots are held. With 8 of 16 held, a slot
-- with more than 10,000 available jobs is carried instead, and the carried
-- jobs go to the newest held slot (where they stay until worked, never copied
-- again), not the current one. docs/storage.md, "Held slots".
begin;
select plan(4);

select awa_test.large_backlog('hq', 'prune.k');
select awa_test.turn('queue', 6);
-- Slots 7 to 14 each get 1,001 waiting jobs of queue xq (more than a held
-- slot keeps held for) and are then recorded held, as prune would record
-- them (the fixture skips the other 9,000).
do $$
begin
  for i in 7 .. 14 loop
    perform awa.insert_jobs(array_fill('prune.k'::text, array[1001]), null,
                            array_fill('{"queue": "xq"}'::jsonb, array[1001]));
    perform awa.rotate_ring('queue', now());
    insert into awa.ring_held_slots (ring, slot, held_at) values ('queue', i, now() + i * interval '1 second');
  end loop;
end $$;
select is(awa._current_slot('queue'), 15, 'the ring is at slot 15 with slots 7 to 14 held');

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('carried'::text, 0, 'moved 1000 available jobs to slot 14, at least 1000 remain'::text)$$,
                  'slot 0 is carried, not held, into the newest held slot 14');
select is((select count(*)::int from awa.ring_held_slots), 8, 'no ninth slot is held');
select is((select count(*)::int from awa.ready_entries_14 where queue = 'hq'), 1000,
          'the carried jobs are in slot 14');

select * from finish();
rollback;
