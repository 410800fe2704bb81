-- An unknown key in opts raises AW004 naming it, even next to valid keys,
-- and nothing is stored.
begin;
select plan(3);

select * from awa.configure_queue('cfg', '{"dlq": true}');
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.configure_queue('cfg', '{"dlq": false, "retention": 5}')$$,
                 'AW004', 'awa: unknown queue option ''retention''', 'an unknown key raises AW004 naming it');
select is(awa_test.row_counts(), (select c from before), 'the failed call wrote nothing');
select is((select dlq_enabled from awa.queue_meta where queue = 'cfg'), true, 'the valid key next to it was not applied');

select * from finish();
rollback;
