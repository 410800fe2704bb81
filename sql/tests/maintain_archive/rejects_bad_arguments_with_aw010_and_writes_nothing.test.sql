-- Bad arguments raise AW010 and write nothing.
begin;
select plan(4);

select * from awa_test.raises_writing_nothing($$select * from awa.maintain_archive(0)$$,
  'AW010', 'awa: lock_timeout_ms must be between 1 and 60000, got 0', 'a lock_timeout_ms of 0 raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.maintain_archive(50, -1)$$,
  'AW010', 'awa: max_drops must be between 0 and 1000, got -1', 'a negative max_drops raises AW010');

select * from finish();
rollback;
