-- The rotation ledger is append-only: rotations (and skipped rotations) never
-- UPDATE awa.ring_rotations.
begin;
select plan(2);

do $$
begin
    for i in 1 .. 5 loop
        perform awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');
        perform awa.rotate_ring('queue', now());
        perform awa.rotate_ring('claim', now());   -- idle
    end loop;
end
$$;

select is((select n_tup_ins from pg_stat_xact_user_tables where schemaname = 'awa' and relname = 'ring_rotations'),
          5::bigint, 'five rotations inserted five ledger rows');
select is((select n_tup_upd from pg_stat_xact_user_tables where schemaname = 'awa' and relname = 'ring_rotations'),
          0::bigint, 'no ledger row was updated');

select * from finish();
rollback;
