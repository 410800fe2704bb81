-- A queue configured for the first time gets the defaults (dlq off, no
-- deadline) for the keys it does not give.
begin;
select plan(2);

select results_eq($$select dlq_enabled, deadline from awa.configure_queue('fresh1', '{"deadline_seconds": 7}')$$,
                  $$values (false, interval '7 seconds')$$, 'dlq defaults to off');
select results_eq($$select dlq_enabled, deadline from awa.configure_queue('fresh2', '{"dlq": true}')$$,
                  $$values (true, null::interval)$$, 'deadline defaults to none');

select * from finish();
rollback;
