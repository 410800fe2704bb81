-- periodic_jobs_due refuses a limit outside 1..10000 with AW010.
begin;
select plan(3);

select throws_ok($$select * from awa.periodic_jobs_due(null, 0)$$, 'AW010',
                 'awa: limit must be between 1 and 10000, got 0', 'a limit of 0 raises AW010');
select throws_ok($$select * from awa.periodic_jobs_due(null, 10001)$$, 'AW010',
                 'awa: limit must be between 1 and 10000, got 10001', 'a limit of 10001 raises AW010');
select throws_ok($$select * from awa.periodic_jobs_due(null, null)$$, 'AW010',
                 'awa: limit must be between 1 and 10000, got null', 'a NULL limit raises AW010');

select * from finish();
rollback;
