-- kind must be 1 to 255 characters: NULL, empty or 256 characters raise AW001
-- and write nothing; 255 characters are accepted.
begin;
select plan(8);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job(null, '{}', '{}')$$, 'AW001', 'awa: kind must be 1 to 255 characters, got null', 'a NULL kind raises AW001', 'a NULL kind writes nothing'),
  ($$select * from awa.insert_job('', '{}', '{}')$$, 'AW001', 'awa: kind must be 1 to 255 characters, got ''''', 'an empty kind raises AW001', 'an empty kind writes nothing'),
  ($$select * from awa.insert_job(repeat('k', 256), '{}', '{}')$$, 'AW001', NULL, 'a 256-character kind raises AW001', 'a 256-character kind writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select is((select kind from awa.insert_job(repeat('k', 255), '{}', '{}')), repeat('k', 255),
  'a 255-character kind is accepted');

select * from finish();
rollback;
