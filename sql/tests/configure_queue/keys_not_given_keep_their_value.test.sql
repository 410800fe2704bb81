-- Keys left out of opts keep their stored value; an empty object changes
-- nothing; deadline_seconds null removes the deadline.
begin;
select plan(4);

select * from awa.configure_queue('cfg', '{"dlq": true}');

select results_eq($$select dlq_enabled, deadline from awa.configure_queue('cfg', '{"deadline_seconds": 5}')$$,
                  $$values (true, interval '5 seconds')$$,
                  'setting the deadline keeps dlq on');
select results_eq($$select dlq_enabled, deadline from awa.configure_queue('cfg', '{"dlq": false}')$$,
                  $$values (false, interval '5 seconds')$$,
                  'setting dlq keeps the deadline');
select results_eq($$select dlq_enabled, deadline from awa.configure_queue('cfg', '{}')$$,
                  $$values (false, interval '5 seconds')$$,
                  'empty opts keep everything');
select results_eq($$select dlq_enabled, deadline from awa.configure_queue('cfg', '{"deadline_seconds": null}')$$,
                  $$values (false, null::interval)$$,
                  'deadline_seconds null removes the deadline');

select * from finish();
rollback;
