-- paused_queues lists the paused queues, oldest pause first; a resumed queue
-- leaves the list.
begin;
select plan(2);

select * from awa.pause_queue('b_q', '2026-01-02 00:00Z');
select * from awa.pause_queue('a_q', '2026-01-03 00:00Z');
select * from awa.pause_queue('c_q', '2026-01-01 00:00Z');
select results_eq($$select queue, paused, paused_at from awa.paused_queues()$$,
                  $$values ('c_q'::text, true, '2026-01-01 00:00Z'::timestamptz), ('b_q', true, '2026-01-02 00:00Z'),
                           ('a_q', true, '2026-01-03 00:00Z')$$, 'the paused queues, oldest pause first');
select * from awa.resume_queue('b_q');
select results_eq($$select queue from awa.paused_queues()$$, $$values ('c_q'::text), ('a_q')$$,
                  'a resumed queue leaves the list');

select * from finish();
rollback;
