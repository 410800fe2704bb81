-- A unique job in the DLQ (failed: out of its key's default states) whose key
-- another job took cannot come out of the DLQ while that job holds it: AW021,
-- nothing written. A DLQ job still holding its key runs again and keeps it.
begin;
select plan(4);

create temp table c1 as select * from awa_test.dlq_claim('dq.k', '{}', '{"queue": "dq", "unique": {}}', now());
create temp table j2 as select * from awa.insert_job('dq.k', '{}', '{"queue": "dq", "unique": {}}');
select * from awa_test.raises_writing_nothing(
  format('select * from awa.retry_dlq_job(%s)', (select id from c1)), 'AW021', NULL,
  'retrying the DLQ job while another holds its key raises AW021');

create temp table c3 as select * from awa_test.dlq_claim('dq.other', '{}', '{"queue": "dq", "unique": {}}', now());
select is((select state from awa.retry_dlq_job((select id from c3))), 'available'::awa.job_state,
          'a DLQ job still holding its key runs again');
select is((select job_id from awa.unique_keys k where k.job_id = (select id from c3)), (select id from c3),
          'and keeps its key row');

select * from finish();
rollback;
