-- At most 20 tags of 1 to 100 characters: 21 tags, an empty tag or a
-- 101-character tag raise AW007 and write nothing; 20 tags of 100 are fine.
begin;
select plan(8);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', jsonb_build_object('tags', (select jsonb_agg('t' || i) from generate_series(1, 21) i)))$$, 'AW007', 'awa: opts.tags holds 21 tags, at most 20 are allowed', '21 tags raise AW007', '21 tags write nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"tags": ["ok", ""]}')$$, 'AW007', 'awa: each tag must be 1 to 100 characters, got ""', 'an empty tag raises AW007', 'an empty tag writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', jsonb_build_object('tags', jsonb_build_array(repeat('t', 101))))$$, 'AW007', NULL, 'a 101-character tag raises AW007', 'a 101-character tag writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

create temp table inserted as
select * from awa.insert_job('noop', '{}',
  jsonb_build_object('tags', (select jsonb_agg(lpad(i::text, 100, 't') order by i) from generate_series(1, 20) i)));
select is((select tags from awa.jobs where id = (select id from inserted)),
  (select array_agg(lpad(i::text, 100, 't') order by i) from generate_series(1, 20) i),
  '20 tags of 100 characters are accepted and stored in order');

select * from finish();
rollback;
