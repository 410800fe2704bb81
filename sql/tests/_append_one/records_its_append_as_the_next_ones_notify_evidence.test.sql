-- At READ COMMITTED, awa._append_one leaves in its lane cache entry the tail
-- that the session's next one-job append takes as the notify rule's evidence:
-- the lane, the position, this transaction and the cursor ring's generation
-- and slot; the entry's lanes and expiry are kept. A tail naming another lane,
-- a transaction that did not commit or a stale generation is not evidence: the
-- append still goes through (awa._claimers_behind decides) and writes its own.
begin;
select plan(8);

select awa.insert_job('k', '{}', '{"queue": "one_tail"}');
create temp table j as
select awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{}', '{"queue": "one_tail"}', now()) as b;
create temp table before as
select string_to_array(current_setting(awa._lane_cache_key('one_tail', 2::smallint)), '|') as f;
select is((select awa._append_one(b) from j), true, 'appended');

create temp table tail as
select string_to_array(current_setting(awa._lane_cache_key('one_tail', 2::smallint)), '|') as f;
select is((select f[1:7] from tail), (select f[1:7] from before), 'the entry''s expiry and lanes are kept');
select is((select array[f[8]::int, f[9]::bigint::int % 1024] from tail),
          (select array[e.lane_id, 0] from awa.ready_entries e, j where e.job_id = (j.b).job_id),
          'the tail names the lane and the position');
select is((select f[9]::bigint from tail),
          (select e.lane_seq from awa.ready_entries e, j where e.job_id = (j.b).job_id), 'exactly');
select is((select f[10]::xid8 from tail), pg_current_xact_id(), 'and this transaction');
select is((select array[f[11]::bigint, f[12]::bigint] from tail),
          (select array[r.generation, r.slot::bigint] from awa.ring_rotations r where r.ring = 'cursor'
           order by r.generation desc limit 1),
          'and the cursor ring''s generation and slot');

-- Tails that are no evidence: another lane, an unknown transaction (a
-- prepared one never committed reads so), an older generation.
select set_config(awa._lane_cache_key('one_tail', 2::smallint),
                  array_to_string((select f[1:7] from tail) || array['0', (select f[9] from tail), '1', '0', '0'], '|'), false);
update j set b = awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{}', '{"queue": "one_tail"}', now());
select is((select awa._append_one(b) from j), true, 'a tail that is no evidence: appended all the same');
select is((string_to_array(current_setting(awa._lane_cache_key('one_tail', 2::smallint)), '|'))[8:10],
          (select array[e.lane_id::text, e.lane_seq::text, pg_current_xact_id()::text]
           from awa.ready_entries e, j where e.job_id = (j.b).job_id),
          'and its own tail written');

select * from finish();
rollback;
