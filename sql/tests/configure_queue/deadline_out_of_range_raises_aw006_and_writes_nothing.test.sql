-- deadline_seconds outside 1..31536000 raises AW006; nothing is stored.
begin;
select plan(4);

create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": 0}')$$,
                 'AW006', 'awa: opts.deadline_seconds must be between 1 and 31536000, got 0', 'deadline 0 raises AW006');
select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": -5}')$$,
                 'AW006', null, 'a negative deadline raises AW006');
select throws_ok($$select * from awa.configure_queue('cfg', '{"deadline_seconds": 31536001}')$$,
                 'AW006', null, 'a deadline over a year raises AW006');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
