-- Bad input raises a documented SQLSTATE (docs/errors.md) and writes
-- nothing, as awa.list_jobs': a limit outside 1..1000 or NULL (AW010); a
-- queue name no queue can have (AW002), an empty or over-long kind (AW001),
-- an empty or over-long tag (AW007).
begin;
select plan(10);

select * from awa_test.raises_writing_nothing($$select * from awa.list_dlq_jobs(p_limit => 0)$$, 'AW010',
  'awa: limit must be between 1 and 1000, got 0', 'limit 0 raises AW010', 'limit 0 writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_dlq_jobs(p_limit => null)$$, 'AW010',
  'awa: limit must be between 1 and 1000, got null', 'a NULL limit raises AW010', 'a NULL limit writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_dlq_jobs(p_queue => 'no spaces')$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''no spaces''',
  'a queue name no queue can have raises AW002', 'a bad queue name writes nothing');
select * from awa_test.raises_writing_nothing($$select * from awa.list_dlq_jobs(p_kind => '')$$, 'AW001',
  'awa: kind must be 1 to 255 characters, got ''''', 'an empty kind raises AW001', 'an empty kind writes nothing');
select throws_ok($$select * from awa.list_dlq_jobs(p_kind => repeat('k', 256))$$, 'AW001', null,
                 'a kind over 255 characters raises AW001');
select throws_ok($$select * from awa.list_dlq_jobs(p_tag => repeat('t', 101))$$, 'AW007', null,
                 'a tag over 100 characters raises AW007');

select * from finish();
rollback;
