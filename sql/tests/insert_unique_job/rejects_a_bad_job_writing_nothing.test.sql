-- Bad input raises as awa.insert_job would (AW001 kind, AW005 unique options)
-- and writes nothing.
begin;
select plan(4);

select * from awa_test.raises_writing_nothing(
  $$select * from awa.insert_unique_job('', '{}', '{"unique": {}}')$$, 'AW001', NULL, 'an empty kind raises AW001');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.insert_unique_job('k', '{}', '{"unique": []}')$$, 'AW005', NULL, 'unique not an object raises AW005');

select * from finish();
rollback;
