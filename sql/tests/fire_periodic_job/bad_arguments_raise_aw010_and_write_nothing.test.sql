-- fire_periodic_job refuses arguments no leader computes with AW010 and
-- writes nothing: a NULL name, revision or new_next_run_at; a fire_at
-- without an expected time (a first time is scheduled, never fired), before
-- it or in the future; a new_next_run_at not after the fire.
begin;
select plan(14);

select awa.upsert_periodic_job('p', '0 * * * *', 'k');
select awa.fire_periodic_job('p', 1, null, null, '2026-01-01 01:00Z');

select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job(null, 1, null, null, now())$$, 'AW010',
  'awa: name, revision and new_next_run_at must not be null', 'a NULL name raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', null, null, null, now())$$, 'AW010',
  'awa: name, revision and new_next_run_at must not be null', 'a NULL revision raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', 1, '2026-01-01 01:00Z', '2026-01-01 01:00Z', null)$$, 'AW010',
  'awa: name, revision and new_next_run_at must not be null', 'a NULL new_next_run_at raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', 1, null, '2026-01-01 01:00Z', '2026-01-01 02:00Z')$$, 'AW010',
  'awa: fire_at 2026-01-01 01:00:00+00 needs expected_next_run_at: a schedule''s first time is scheduled, not fired',
  'a fire_at without an expected time raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', 1, '2026-01-01 01:00Z', '2026-01-01 00:00Z', '2026-01-01 02:00Z', '2026-01-01 03:00Z')$$, 'AW010',
  'awa: fire_at must lie between expected_next_run_at 2026-01-01 01:00:00+00 and now 2026-01-01 03:00:00+00, got 2026-01-01 00:00:00+00',
  'a fire_at before the expected time raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', 1, '2026-01-01 01:00Z', '2026-01-01 04:00Z', '2026-01-01 05:00Z', '2026-01-01 03:00Z')$$, 'AW010',
  'awa: fire_at must lie between expected_next_run_at 2026-01-01 01:00:00+00 and now 2026-01-01 03:00:00+00, got 2026-01-01 04:00:00+00',
  'a fire_at in the future raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.fire_periodic_job('p', 1, '2026-01-01 01:00Z', '2026-01-01 01:00Z', '2026-01-01 01:00Z', '2026-01-01 03:00Z')$$, 'AW010',
  'awa: new_next_run_at must be after 2026-01-01 01:00:00+00, got 2026-01-01 01:00:00+00',
  'a new_next_run_at not after the fire raises AW010');

select * from finish();
rollback;
