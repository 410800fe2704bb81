-- by_period 3600.0 is a whole number of seconds (awa._validate_unique accepts
-- it), so it is the period 3600: the insert works, and its key is the key
-- of by_period 3600 (the key is derived from the number, not its spelling).
begin;
select plan(4);

select lives_ok($$select * from awa.insert_unique_job('p1', '{}',
                    '{"run_at": "2030-01-01T10:05:00Z", "unique": {"by_period": 3600.0}}')$$,
                'by_period 3600.0 inserts a job');
select is((select duplicate from awa.insert_unique_job('p1', '{}',
              '{"run_at": "2030-01-01T10:55:00Z", "unique": {"by_period": 3600}}')), true,
          'by_period 3600 in the same bucket is its duplicate');
select is((select duplicate from awa.insert_unique_job('p1', '{}',
              '{"run_at": "2030-01-01T11:05:00Z", "unique": {"by_period": 36e2}}')), false,
          'by_period 36e2 in the next bucket is another key');
select throws_ok($$select * from awa.insert_unique_job('p2', '{}', '{"unique": {"by_period": 60.5}}')$$,
                 'AW005', null, 'a by_period with a fraction is still refused (AW005)');

select * from finish();
rollback;
