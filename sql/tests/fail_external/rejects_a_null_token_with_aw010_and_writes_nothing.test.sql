-- A NULL token raises AW010 and writes nothing.
begin;
select plan(2);

create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
select * from awa_test.raises_writing_nothing($$select * from awa.fail_external(null, 'x')$$, 'AW010',
                                              'awa: callback_id must not be null', 'a NULL token raises AW010');

select * from finish();
rollback;
