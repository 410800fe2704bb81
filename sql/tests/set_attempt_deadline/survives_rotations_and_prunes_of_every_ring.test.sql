-- An attempt with a deadline of its own, much later than its claim's, while
-- the claim, lease and queue rings turn 16 times each (two wraps of 8 slots,
-- one of the queue ring's 16), rotated and pruned every turn: its claim
-- batch, lease and ready row are carried forward, it is not rescued before
-- its own deadline (though its claim's passed long ago), and at that
-- deadline the rescue closes it with its claim-time receipt.
begin;
select plan(6);

select * from awa.insert_job('long', '{}', '{"queue": "sad_long"}');
create temp table long as
select * from awa.claim_ready_runtime('sad_long', 1, null, now(), p_attempt_deadline => interval '1 minute');
select outcome from long, awa.set_attempt_deadline(long.id, long.run_lease, long.claim_slot, long.receipt_id,
                                                   now() + interval '3 hours');
create temp table gen0 as select ring, max(generation) as g from awa.ring_rotations group by ring;

do $$
begin
  for i in 1 .. 16 loop
    perform awa_test.turn('claim', 1, '_turn', true);
    perform awa_test.turn('lease', 1, '_turn_lease', true);
    -- the lease ring turns only with new escalations in its current slot
    perform count(*) from awa_test.claim_one('esc', '{}', '{"queue": "_esc"}', now()) t,
      awa.set_progress(t.id, t.run_lease, t.claim_slot, t.receipt_id, '{}'),
      awa.complete_jobs(array[t.id], array[t.run_lease], array[t.claim_slot], array[t.receipt_id]);
    perform awa_test.turn('queue', 1, '_turn', true);
  end loop;
end $$;

select ok((select max(r.generation) - g.g from awa.ring_rotations r where r.ring = g.ring) >= 16,
          g.ring || ' ring rotated at least 16 times: every slot pruned and reused at least once')
from gen0 g where g.ring in ('claim', 'lease', 'queue') order by g.ring;
select is((select count(*) from awa.leases where job_id = (select id from long)), 1::bigint,
          'the attempt''s lease was carried forward');
select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '2 hours') where job_id = (select id from long)$$,
                'past its claim''s deadline but before its own, the attempt is left alone');
select results_eq(
  $$select job_id, outcome from awa.rescue_expired_deadlines(1000, now() + interval '4 hours')$$,
  $$select id, 'applied'::awa.finalize_outcome from long$$,
  'at its own deadline it is rescued, with the receipt of its claim');

select * from finish();
rollback;
