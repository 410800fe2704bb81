-- available counts the untombstoned ready rows above their lane's cursor: a
-- position reserved by an insert that rolled back does not count, nor does a
-- cancelled job, and the count agrees with awa.jobs before and after claims.
begin;
select plan(4);

select * from awa.insert_job('cnt.k', '{}', '{"queue": "qg"}');
create temp table gone as select * from awa.insert_job('cnt.k', '{}', '{"queue": "qg"}');
select * from awa.cancel_job((select id from gone));
savepoint producer;
select * from awa.insert_job('cnt.k', '{}', '{"queue": "qg"}');
rollback to savepoint producer;

select is((select available from awa.queue_counts('qg')), 1::bigint,
          'neither the rolled-back position nor the cancelled job counts');
select is((select available from awa.queue_counts('qg')),
          (select count(*) from awa.jobs where queue = 'qg' and state = 'available'),
          'the available count agrees with awa.jobs');

select * from awa.claim_ready_runtime('qg', 10, null, now());

select is((select available from awa.queue_counts('qg')), 0::bigint, 'after the claim nothing is available');
select is((select available from awa.queue_counts('qg')),
          (select count(*) from awa.jobs where queue = 'qg' and state = 'available'),
          'and the count still agrees with awa.jobs');

select * from finish();
rollback;
