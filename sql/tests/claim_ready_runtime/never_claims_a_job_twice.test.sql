-- A claimed job is not handed out again by later claims, and the two claims
-- get distinct receipts.
begin;
select plan(4);

select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "once"}'::jsonb, array[3]));
create temp table c1 as select * from awa.claim_ready_runtime('once', 2, null, '2030-01-01 12:00:00+00');
create temp table c2 as select * from awa.claim_ready_runtime('once', 2, null, '2030-01-01 12:00:01+00');
create temp table c3 as select * from awa.claim_ready_runtime('once', 2, null, '2030-01-01 12:00:02+00');

select is((select count(*) from c1), 2::bigint, 'the first claim gets 2 jobs');
select is((select count(*) from c2 where id in (select id from c1)), 0::bigint,
  'the second claim gets none of the first claim''s jobs');
select is((select count(*) from c3), 0::bigint, 'a third claim gets nothing');
select is((select count(distinct receipt_id) from (select receipt_id from c1 union all select receipt_id from c2) x), 3::bigint,
  'every claimed attempt has its own receipt_id');

select * from finish();
rollback;
