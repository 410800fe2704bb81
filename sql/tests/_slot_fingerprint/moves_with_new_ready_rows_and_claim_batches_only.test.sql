-- The fingerprint prune compares under its locks changes when something that
-- could make the slot live arrives (a ready row: its lane's tip moves; a claim
-- batch: the count grows; a claim of one of the slot's available jobs, which
-- prune would otherwise carry while it is running: the lane's first open
-- position moves), and not for rows that cannot (a tombstone, a terminal row,
-- a closure).
begin;
select plan(8);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "fp"}'::jsonb, array[2]));
create temp table p0 as select awa._slot_fingerprint('queue', 0) as q, awa._slot_fingerprint('claim', 0) as c;
select is((select cardinality(q) from p0), 3,
          'queue: one (lane, highest position, first open position) triple per lane in the slot');

select * from awa.insert_job('c', '{}', '{"queue": "fp"}');
select isnt(awa._slot_fingerprint('queue', 0), (select q from p0), 'queue: a new ready row in a lane moves its tip');
select is(awa._slot_fingerprint('claim', 0), (select c from p0), 'claim: unchanged by inserts');

create temp table p1 as select awa._slot_fingerprint('queue', 0) as q, awa._slot_fingerprint('claim', 0) as c;
create temp table got as select * from awa.claim_ready_runtime('fp', 1, null, now());
select is(awa._slot_fingerprint('claim', 0), array[(select c[1] + 1 from p1)], 'claim: a new claim batch counts');
select is((select q[1:2] from p1), (awa._slot_fingerprint('queue', 0))[1:2], 'queue: a claim leaves the lane''s tip alone');
select isnt(awa._slot_fingerprint('queue', 0), (select q from p1),
            'queue: a claim of one of the slot''s available jobs moves the lane''s first open position');

create temp table p2 as select awa._slot_fingerprint('queue', 0) as q;
select * from awa.complete_jobs(array[(select id from got)], array[(select run_lease from got)],
                                array[(select claim_slot from got)], array[(select receipt_id from got)], now());
select * from awa.cancel_job((select j.id from awa.jobs j where j.queue = 'fp' and j.kind = 'c'));
select is(awa._slot_fingerprint('queue', 0), (select q from p2),
          'queue: unchanged by a completion, a tombstone and a cancelled snapshot');
select throws_ok($$select awa._slot_fingerprint('nope', 0)$$, 'AW010', null, 'an unknown ring raises AW010');

select * from finish();
rollback;
