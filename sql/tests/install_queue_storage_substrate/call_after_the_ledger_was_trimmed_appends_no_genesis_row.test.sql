-- Install is idempotent even after rotate_ring trimmed the genesis row out of
-- the ledger: a further call must not append a new (generation 0, slot 0) row.
begin;
select plan(3);

-- 16 rotations of the 8-slot claim ring (each round: claim, finalize, rotate,
-- prune the sealed slot) trim generation 0 out of the claim ledger.
select awa_test.turn('claim', 16, 'iq', p_prune => true);

select results_eq(
  $$select min(generation), max(generation) from awa.ring_rotations where ring = 'claim'$$,
  $$values (1::bigint, 16::bigint)$$,
  'the claim ledger was trimmed to generations 1..16 (fixture)');

select awa_test.writes_nothing($$select * from awa.install_queue_storage_substrate()$$,
                               'a further install call writes nothing');
select is((select count(*)::int from awa.ring_rotations where ring = 'claim' and generation = 0), 0,
          'no genesis row is appended to the trimmed claim ledger');

select * from finish();
rollback;
