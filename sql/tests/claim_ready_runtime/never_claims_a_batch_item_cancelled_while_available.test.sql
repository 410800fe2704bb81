-- Tombstones (awa.ready_tombstones) name positions, so they drop batch
-- items as they drop per-row ready rows: a claim skips the items of a batch
-- row whose positions are tombstoned and fills max from the items after them,
-- and from a per-row job after a cancelled one, in position order. (Until
-- awa.cancel_job reads the batch plane, the test writes the items' tombstones
-- as it writes a per-row job's.)
begin;
select plan(3);

create temp table b as
select b.id, k from unnest(awa_test.batch_row(array_fill('tb.k'::text, array[5]),
                                              array(select jsonb_build_object('n', g) from generate_series(1, 5) g),
                                              array_fill('{"queue": "tb"}'::jsonb, array[5]))) with ordinality as b (id, k);
create temp table r as select (awa.insert_job('tb.k', '{"n": "r1"}', '{"queue": "tb"}')).id;
create temp table r2 as select (awa.insert_job('tb.k', '{"n": "r2"}', '{"queue": "tb"}')).id;
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select x.ready_slot, x.lane_id, x.first_seq + b.k - 1, b.id, now()
from awa.ready_batches x join b on b.k in (2, 3) where x.queue = 'tb';
select is((select (awa.cancel_job(id)).state::text from r), 'cancelled', 'fixture: the per-row job r1 is cancelled');

select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('tb', 3)$$,
                  $$values ('1'), ('4'), ('5')$$,
                  'a claim of 3 skips the tombstoned items 2 and 3 and takes 1, 4 and 5');
select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('tb', 3)$$,
                  $$values ('r2')$$,
                  'the next skips the cancelled per-row job and takes the one after it');

select * from finish();
rollback;
