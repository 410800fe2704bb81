-- The rescue finds attempts' own deadlines by the partial index
-- attempt_state_deadline_at (awa._due_attempt_deadlines is inlined into its
-- statement: EXPLAIN of a call shows that index), and with 2,000 checkpoints
-- in attempt_state and an expired batch to check, a rescue call reads
-- attempt_state by index only: no sequential scan of it.
begin;
select plan(3);

insert into awa.attempt_state (job_id, run_lease, progress, updated_at)
select -g, 1, '{}', '2030-01-01 12:00:00+00' from generate_series(1, 2000) g;
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "red_idx"}'::jsonb, array[2]));
create temp table c as select row_number() over () as n, * from awa.claim_ready_runtime('red_idx', 2, null, '2030-01-01 12:00:00+00',
                                                                                      p_attempt_deadline => interval '1 minute');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 12:30:00+00',
                                                '2030-01-01 12:00:01+00') where c.n = 2;
analyze awa.attempt_state;

create temp table plan_text (line text);
do $$
declare l text;
begin
  for l in execute $q$explain select * from awa._due_attempt_deadlines('2030-01-01 13:00:00+00', 1000)$q$ loop
    insert into plan_text values (l);
  end loop;
end $$;
select ok((select bool_or(line ~ 'Index Scan using attempt_state_deadline_at') from plan_text)
          and not (select bool_or(line ~ 'Function Scan') from plan_text),
          'the own-deadline lookup is inlined and scans the partial index: ' ||
          (select string_agg(line, ' / ') from plan_text));

create temp table seq_before as
select seq_scan, idx_scan from pg_stat_xact_user_tables where schemaname = 'awa' and relname = 'attempt_state';
select results_eq($$select job_id from awa.rescue_expired_deadlines(1000, '2030-01-01 12:10:00+00')$$,
                  $$select id from c where n = 1$$,
                  'the attempt past its batch''s deadline is rescued, the one with a later deadline of its own is not');
select ok((select s.seq_scan = b.seq_scan and s.idx_scan > b.idx_scan
           from pg_stat_xact_user_tables s, seq_before b where s.schemaname = 'awa' and s.relname = 'attempt_state'),
          'the rescue read attempt_state by index only');

select * from finish();
rollback;
