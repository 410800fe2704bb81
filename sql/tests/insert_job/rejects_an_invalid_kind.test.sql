-- kind must be 1 to 255 characters: NULL, empty or 256 characters raise AW001
-- and write nothing; 255 characters are accepted.
begin;
select plan(8);

create temp table counts_before as select awa_test.row_counts() as c;

prepare kind_null as select * from awa.insert_job(null, '{}', '{}');
select throws_ok('kind_null', 'AW001', 'awa: kind must be 1 to 255 characters, got null', 'a NULL kind raises AW001');
select awa_test.writes_nothing($$select awa_test.attempt('kind_null')$$, 'a NULL kind writes nothing');

prepare kind_empty as select * from awa.insert_job('', '{}', '{}');
select throws_ok('kind_empty', 'AW001', 'awa: kind must be 1 to 255 characters, got ''''', 'an empty kind raises AW001');
select awa_test.writes_nothing($$select awa_test.attempt('kind_empty')$$, 'an empty kind writes nothing');

prepare kind_256 as select * from awa.insert_job(repeat('k', 256), '{}', '{}');
select throws_ok('kind_256', 'AW001', NULL, 'a 256-character kind raises AW001');
select awa_test.writes_nothing($$select awa_test.attempt('kind_256')$$, 'a 256-character kind writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select is((select kind from awa.insert_job(repeat('k', 255), '{}', '{}')), repeat('k', 255),
  'a 255-character kind is accepted');

select * from finish();
rollback;
