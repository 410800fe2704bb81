-- The cursor ring has 2 slots: once both hold marks, rotation is skipped_busy
-- until prune has reclaimed the sealed one; then it rotates into it.
-- (This is why the Go leader prunes this ring before it rotates it.)
begin;
select plan(4);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "cr"}'::jsonb, array[2]));
select * from awa.claim_ready_runtime('cr', 1, null, now());
select results_eq($$select outcome, slot, generation from awa.rotate_ring('cursor', now())$$,
                  $$values ('rotated'::text, 1, 1::bigint)$$, 'a cursor slot with marks is sealed: slot 1 is current');
select * from awa.claim_ready_runtime('cr', 1, null, now());
select results_eq(
  $$select outcome, slot, detail from awa.rotate_ring('cursor', now())$$,
  $$values ('skipped_busy'::text, 0, 'incoming slot 0 still holds rows; prune has not reclaimed it'::text)$$,
  'with marks in both slots the next rotation is skipped_busy');
select results_eq($$select outcome, slot from awa.prune_ring('cursor')$$, $$values ('pruned'::text, 0)$$,
                  'prune reclaims sealed slot 0');
select results_eq($$select outcome, slot, generation from awa.rotate_ring('cursor', now())$$,
                  $$values ('rotated'::text, 0, 2::bigint)$$, 'then the ring rotates into slot 0');

select * from finish();
rollback;
