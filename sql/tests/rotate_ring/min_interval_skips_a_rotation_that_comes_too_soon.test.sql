-- With min_interval the cadence lives in the database: a rotation younger than
-- min_interval makes the next one skip (skipped_recent), whoever calls it, so
-- a newly elected maintenance leader does not rotate early.
begin;
select plan(5);

select * from awa.insert_job('k', '{}', '{"queue": "mi"}');
select results_eq($$select outcome from awa.rotate_ring('queue', '2030-01-01 12:00:00+00', interval '5 seconds')$$,
                  $$values ('rotated'::text)$$, 'the first rotation happens (genesis is older than 5 seconds)');
select * from awa.insert_job('k', '{}', '{"queue": "mi"}');
select results_eq($$select outcome, slot from awa.rotate_ring('queue', '2030-01-01 12:00:03+00', interval '5 seconds')$$,
                  $$values ('skipped_recent'::text, 1)$$, 'three seconds later it is skipped_recent');
select is((select max(generation) from awa.ring_rotations where ring = 'queue'), 1::bigint,
          'no ledger row was appended');
select results_eq($$select outcome from awa.rotate_ring('queue', '2030-01-01 12:00:05+00', interval '5 seconds')$$,
                  $$values ('rotated'::text)$$, 'five seconds later it rotates');
select throws_ok($$select * from awa.rotate_ring('queue', null, interval '-1 second')$$, 'AW010',
                 'awa: min_interval must not be negative, got -00:00:01', 'a negative min_interval raises AW010');

select * from finish();
rollback;
