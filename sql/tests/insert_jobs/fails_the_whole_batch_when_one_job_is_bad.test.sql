-- One bad job anywhere in the batch (first, middle or last) fails the whole
-- call with that job's SQLSTATE; none of the good jobs is inserted.
begin;
select plan(11);

create temp table counts_before as select awa_test.row_counts() as c;

prepare bad_first as
  select * from awa.insert_jobs(array['', 'ok', 'ok'], null, array['{"queue": "batch"}', '{"queue": "batch"}', '{"queue": "batch"}']::jsonb[]);
select throws_ok('bad_first', 'AW001', NULL, 'a bad kind in the first job fails the batch with AW001');
select awa_test.writes_nothing($$select awa_test.attempt('bad_first')$$, 'a bad first job writes nothing');

prepare bad_middle as
  select * from awa.insert_jobs(array['ok', 'ok', 'ok'], null, array['{"queue": "batch"}', '{"queue": "batch", "priority": 9}', '{"queue": "batch"}']::jsonb[]);
select throws_ok('bad_middle', 'AW006', NULL, 'an out-of-range priority in the middle job fails the batch with AW006');
select awa_test.writes_nothing($$select awa_test.attempt('bad_middle')$$, 'a bad middle job writes nothing');

prepare bad_last as
  select * from awa.insert_jobs(array['ok', 'ok', 'ok'], null,
    array['{"queue": "batch"}', jsonb_build_object('queue', 'batch', 'run_at', now() + interval '1 hour'), '{"queue": "bad queue"}']::jsonb[]);
select throws_ok('bad_last', 'AW002', NULL, 'a bad queue in the last job fails the batch with AW002');
select awa_test.writes_nothing($$select awa_test.attempt('bad_last')$$, 'a bad last job writes nothing, neither ready nor scheduled rows');

prepare null_args_element as
  select * from awa.insert_jobs(array['ok', 'ok'], array['{}', null]::jsonb[], null);
select throws_ok('null_args_element', 'AW003', NULL, 'a NULL element of args fails the batch with AW003');
select awa_test.writes_nothing($$select awa_test.attempt('null_args_element')$$, 'a NULL args element writes nothing');

prepare null_kind_element as
  select * from awa.insert_jobs(array['ok', null]);
select throws_ok('null_kind_element', 'AW001', NULL, 'a NULL element of kinds fails the batch with AW001');
select awa_test.writes_nothing($$select awa_test.attempt('null_kind_element')$$, 'a NULL kinds element writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
