-- One bad job anywhere in the batch (first, middle or last) fails the whole
-- call with that job's SQLSTATE; none of the good jobs is inserted.
begin;
select plan(11);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_jobs(array['', 'ok', 'ok'], null, array['{"queue": "batch"}', '{"queue": "batch"}', '{"queue": "batch"}']::jsonb[])$$, 'AW001', NULL, 'a bad kind in the first job fails the batch with AW001', 'a bad first job writes nothing'),
  ($$select * from awa.insert_jobs(array['ok', 'ok', 'ok'], null, array['{"queue": "batch"}', '{"queue": "batch", "priority": 9}', '{"queue": "batch"}']::jsonb[])$$, 'AW006', NULL, 'an out-of-range priority in the middle job fails the batch with AW006', 'a bad middle job writes nothing'),
  ($$select * from awa.insert_jobs(array['ok', 'ok', 'ok'], null,
    array['{"queue": "batch"}', jsonb_build_object('queue', 'batch', 'run_at', now() + interval '1 hour'), '{"queue": "bad queue"}']::jsonb[])$$, 'AW002', NULL, 'a bad queue in the last job fails the batch with AW002', 'a bad last job writes nothing, neither ready nor scheduled rows'),
  ($$select * from awa.insert_jobs(array['ok', 'ok'], array['{}', null]::jsonb[], null)$$, 'AW003', NULL, 'a NULL element of args fails the batch with AW003', 'a NULL args element writes nothing'),
  ($$select * from awa.insert_jobs(array['ok', null])$$, 'AW001', NULL, 'a NULL element of kinds fails the batch with AW001', 'a NULL kinds element writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
