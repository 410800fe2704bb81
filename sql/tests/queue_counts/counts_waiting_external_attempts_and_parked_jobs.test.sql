-- waiting_external counts the open attempts waiting for their callback
-- (registered, not resumed), which no longer count as running, and the
-- parked jobs. A resume makes the waiting attempt running again and the
-- parked job available; resolutions move them to their end state.
begin;
select plan(5);

create temp table w as select * from awa_test.claim_registered('qw', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('qw', '2030-01-01 12:00:00+00');
create temp table plain as select * from awa_test.claim_one('k', '{}', '{"queue": "qw"}', '2030-01-01 12:00:00+00');

prepare counts as select available, running, completed, waiting_external from awa.queue_counts('qw');
select results_eq('counts', $$values (0::bigint, 1::bigint, 0::bigint, 2::bigint)$$,
                  'one running, one waiting in sequence and one parked: 1 running, 2 waiting_external');
select results_eq($$select count(*) filter (where state = 'waiting_external'), count(*) filter (where state = 'running') from awa.jobs$$,
                  $$values (2::bigint, 1::bigint)$$, 'as awa.jobs shows them');
select state from w, awa.resume_external(w.callback_id, '{}');
select state from p, awa.resume_external(p.callback_id, '{}');
select results_eq('counts', $$values (1::bigint, 2::bigint, 0::bigint, 0::bigint)$$,
                  'resumed: the waiting attempt runs again, the parked job is available');

create temp table w2 as select * from awa_test.claim_registered('qw2', '2030-01-01 12:00:00+00');
create temp table p2 as select * from awa_test.claim_parked('qw2', '2030-01-01 12:00:00+00');
select results_eq($$select queue, running, waiting_external from awa.queue_counts() order by queue$$,
                  $$values ('qw'::text, 2::bigint, 0::bigint), ('qw2', 0, 2)$$, 'counted per queue');
select state from w2, awa.complete_external(w2.callback_id);
select state from p2, awa.complete_external(p2.callback_id);
select results_eq($$select running, completed, waiting_external from awa.queue_counts('qw2')$$,
                  $$values (0::bigint, 2::bigint, 0::bigint)$$, 'completed by their callbacks: 2 completed');

select * from finish();
rollback;
