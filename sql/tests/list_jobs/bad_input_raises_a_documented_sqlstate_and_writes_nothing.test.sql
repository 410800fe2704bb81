-- Bad input raises a documented SQLSTATE (docs/errors.md) and writes
-- nothing: a limit outside 1..1000 or NULL, an empty state list or one
-- holding NULL, from after to (AW010); a queue name no queue can have
-- (AW002), an empty or over-long kind (AW001), an empty or over-long tag
-- (AW007). A state name that is not a job state fails in the caller's cast
-- (22P02), before the function runs.
begin;
select plan(21);

select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_limit => 0)$$, 'AW010',
  'awa: limit must be between 1 and 1000, got 0', 'limit 0 raises AW010', 'limit 0 writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_limit => 1001)$$, 'AW010',
  'awa: limit must be between 1 and 1000, got 1001', 'limit 1001 raises AW010', 'limit 1001 writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_limit => null)$$, 'AW010',
  'awa: limit must be between 1 and 1000, got null', 'a NULL limit raises AW010', 'a NULL limit writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_states => '{}')$$, 'AW010',
  'awa: states must be NULL (any) or job states without NULL, got {}', 'an empty state list raises AW010',
  'an empty state list writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_states => '{failed,NULL}')$$, 'AW010',
  'awa: states must be NULL (any) or job states without NULL, got {failed,NULL}',
  'a state list holding NULL raises AW010', 'a state list holding NULL writes nothing');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.list_jobs(p_from => '2030-01-02 00:00:00+00', p_to => '2030-01-01 00:00:00+00')$$, 'AW010',
  'awa: from must not be after to, got from 2030-01-02 00:00:00+00 and to 2030-01-01 00:00:00+00',
  'from after to raises AW010', 'from after to writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_queue => 'no spaces')$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''no spaces''',
  'a queue name no queue can have raises AW002', 'a bad queue name writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_kind => '')$$, 'AW001',
  'awa: kind must be 1 to 255 characters, got ''''', 'an empty kind raises AW001', 'an empty kind writes nothing');
select throws_ok($$select * from awa.list_jobs(p_kind => repeat('k', 256))$$, 'AW001', null,
                 'a kind over 255 characters raises AW001');
select * from awa_test.raises_writing_nothing($$select * from awa.list_jobs(p_tag => '')$$, 'AW007',
  'awa: tag must be 1 to 100 characters, got ''''', 'an empty tag raises AW007', 'an empty tag writes nothing');
select throws_ok($$select * from awa.list_jobs(p_tag => repeat('t', 101))$$, 'AW007', null,
                 'a tag over 100 characters raises AW007');
select throws_ok($$select * from awa.list_jobs(p_states => '{finished}')$$, '22P02', null,
                 'a state name that is no job state fails in the cast (22P02)');

select * from finish();
rollback;
