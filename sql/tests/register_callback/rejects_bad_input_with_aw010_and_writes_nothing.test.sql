-- A NULL id or timeout, or a timeout outside 1 second..365 days, raises AW010
-- and writes nothing, even for an open attempt; both bounds are accepted.
begin;
select plan(21);

create temp table c as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb"}', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from awa.register_callback(null, (select run_lease from c), (select claim_slot from c), (select receipt_id from c), interval '1 hour')$$,
   'AW010', 'awa: job_id, run_lease, claim_slot and receipt_id must not be null', 'a NULL job_id raises AW010'),
  ($$select * from awa.register_callback((select id from c), null, (select claim_slot from c), (select receipt_id from c), interval '1 hour')$$,
   'AW010', NULL, 'a NULL run_lease raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), null, (select receipt_id from c), interval '1 hour')$$,
   'AW010', NULL, 'a NULL claim_slot raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), null, interval '1 hour')$$,
   'AW010', NULL, 'a NULL receipt_id raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), null)$$,
   'AW010', 'awa: timeout must be between 00:00:01 and 365 days, got null', 'a NULL timeout raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), interval '0')$$,
   'AW010', 'awa: timeout must be between 00:00:01 and 365 days, got 00:00:00', 'a zero timeout raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), interval '999 milliseconds')$$,
   'AW010', NULL, 'a timeout under 1 second raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), interval '-1 hour')$$,
   'AW010', NULL, 'a negative timeout raises AW010'),
  ($$select * from awa.register_callback((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), interval '365 days 1 second')$$,
   'AW010', 'awa: timeout must be between 00:00:01 and 365 days, got 365 days 00:00:01', 'a timeout over 365 days raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;

select is(awa_test.row_counts(), (select n from counts_before), 'no awa table gained or lost a row');
select is((select outcome from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '1 second')),
          'applied'::awa.finalize_outcome, 'a timeout of 1 second is accepted');
select is((select outcome from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '365 days')),
          'applied'::awa.finalize_outcome, 'a timeout of 365 days is accepted');

select * from finish();
rollback;
