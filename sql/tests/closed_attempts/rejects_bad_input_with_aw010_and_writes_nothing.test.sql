-- A NULL array, or arrays of different lengths, raise AW010 and write nothing.
begin;
select plan(5);

select * from awa_test.raises_writing_nothing(
  $$select * from awa.closed_attempts(null, array[1::bigint], array[1], array[1::bigint])$$, 'AW010',
  'awa: job_ids, run_leases, claim_slots and receipt_ids must be non-null arrays of one length',
  'a NULL array raises AW010');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.closed_attempts(array[1::bigint], array[1::bigint, 2], array[1], array[1::bigint])$$, 'AW010',
  'awa: job_ids, run_leases, claim_slots and receipt_ids must be non-null arrays of one length',
  'arrays of different lengths raise AW010');
select is_empty($$select * from awa.closed_attempts('{}', '{}', '{}', '{}')$$, 'empty arrays: no row');

select * from finish();
rollback;
