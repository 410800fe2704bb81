-- A value of the wrong type (dlq not a boolean, deadline_seconds not an
-- integer) or opts that are not an object raise AW005; nothing is stored.
begin;
select plan(8);

create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.configure_queue('cfg', '{"dlq": "yes"}')$$,
                 'AW005', 'awa: opts.dlq must be a boolean, got "yes"', 'dlq as a string raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"dlq": null}')$$,
                 'AW005', null, 'dlq null raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": "5"}')$$,
                 'AW005', 'awa: opts.deadline_seconds must be an integer or null, got "5"',
                 'deadline_seconds as a string raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": 1.5}')$$,
                 'AW005', null, 'a fractional deadline_seconds raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": true}')$$,
                 'AW005', null, 'deadline_seconds as a boolean raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '[]')$$,
                 'AW005', 'awa: opts must be a JSON object, got []', 'opts as an array raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', null)$$,
                 'AW005', 'awa: opts must be a JSON object, got null', 'NULL opts raise AW005');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
