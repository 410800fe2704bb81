-- awa._lock_key is the one definition of the substrate's advisory-lock keys:
-- each name has its key (only install shares lane_creation's class), an
-- unknown name raises, no other function of schema awa writes a key as a
-- literal, and a call is folded to a constant when its statement is planned
-- (the hot path pays nothing for the name).
begin;
select plan(4);

select results_eq(
  $$select n, awa._lock_key(n) from unnest(array['lane_producer', 'claim_batch', 'ring', 'lane_creation', 'install',
                                                  'lane_claim', 'shard_creation']) as n$$,
  $$values ('lane_producer'::text, 1096237313), ('claim_batch', 1096237314), ('ring', 1096237315),
           ('lane_creation', 1096237316), ('install', 1096237316), ('lane_claim', 1096237317),
           ('shard_creation', 1096237318)$$,
  'each named lock has its key');

select throws_ok($$select awa._lock_key('lane')$$, '22P02', null, 'an unknown lock name raises');

select is_empty(
  $$select p.proname from pg_proc p
    where p.pronamespace = 'awa'::regnamespace and p.proname <> '_lock_key' and p.prosrc ~ '10962373[0-9]{2}'$$,
  'no other awa function writes a lock key as a literal');

create temp table plan_text (line text);
do $$
declare l text;
begin
  for l in execute $q$explain verbose select pg_try_advisory_xact_lock(awa._lock_key('lane_claim'), g)
                      from generate_series(1, 2) as g$q$ loop
    insert into plan_text values (l);
  end loop;
end $$;
select ok((select bool_or(line ~ 'pg_try_advisory_xact_lock\(1096237317, g\)') and not bool_or(line ~ '_lock_key')
           from plan_text),
          'the planner inlines the name into the constant key');

select * from finish();
rollback;
