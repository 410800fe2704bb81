-- A NULL id, a NULL progress or a progress over 65536 bytes (as text) raises
-- AW010 and writes nothing, even for an open attempt.
begin;
select plan(13);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sp"}', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from awa.set_progress(null, (select run_lease from c), (select claim_slot from c), (select receipt_id from c), '{}')$$,
   'AW010', 'awa: job_id, run_lease, claim_slot and receipt_id must not be null', 'a NULL job_id raises AW010', NULL),
  ($$select * from awa.set_progress((select id from c), null, (select claim_slot from c), (select receipt_id from c), '{}')$$,
   'AW010', NULL, 'a NULL run_lease raises AW010', NULL),
  ($$select * from awa.set_progress((select id from c), (select run_lease from c), null, (select receipt_id from c), '{}')$$,
   'AW010', NULL, 'a NULL claim_slot raises AW010', NULL),
  ($$select * from awa.set_progress((select id from c), (select run_lease from c), (select claim_slot from c), null, '{}')$$,
   'AW010', NULL, 'a NULL receipt_id raises AW010', NULL),
  ($$select * from awa.set_progress((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), null)$$,
   'AW010', 'awa: progress must not be null', 'a NULL progress raises AW010', NULL),
  ($$select * from awa.set_progress((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c),
                                    jsonb_build_object('blob', repeat('x', 65536)))$$,
   'AW010', 'awa: progress must be at most 65536 bytes as text, got 65548', 'a progress over 65536 bytes raises AW010', NULL)
) as v (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises, v.nothing) t;

select is(awa_test.row_counts(), (select n from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
