-- A lane position reserved by an insert that rolled back counts as available
-- (lane arithmetic) until a claim of that lane passes the gap; then the count
-- agrees with awa.jobs again.
begin;
select plan(3);

select * from awa.insert_job('cnt.k', '{}', '{"queue": "qg"}');
savepoint producer;
select * from awa.insert_job('cnt.k', '{}', '{"queue": "qg"}');
rollback to savepoint producer;

select is((select available from awa.queue_counts('qg')), 2::bigint,
          'the rolled-back position still counts as available (documented)');

select * from awa.claim_ready_runtime('qg', 10, null, now());
select * from awa.claim_ready_runtime('qg', 10, null, now());

select is((select available from awa.queue_counts('qg')), 0::bigint, 'once claims pass the gap nothing is available');
select is((select available from awa.queue_counts('qg')),
          (select count(*) from awa.jobs where queue = 'qg' and state = 'available'),
          'the available count agrees with awa.jobs');

select * from finish();
rollback;
