-- The cursor ring shares rotate_ring's argument check: a negative
-- min_interval raises AW010, and nothing is written (no ledger row, the
-- cursor ring stays at slot 0).
begin;
select plan(3);

select * from awa.insert_job('a', '{}', '{"queue": "cn"}');
select * from awa.claim_ready_runtime('cn', 1, null, now());
select * from awa_test.raises_writing_nothing($$select * from awa.rotate_ring('cursor', now(), '-1 second')$$,
  'AW010', 'awa: min_interval must not be negative, got -00:00:01', 'a negative min_interval raises AW010',
  'the failed call writes nothing');
select is(awa._current_slot('cursor'), 0, 'the cursor ring stays at slot 0');

select * from finish();
rollback;
