-- Key rows and displaced-holder records of jobs history no longer has are
-- deleted and returned; those of jobs still in history (available,
-- cancelled in the queue ring, completed) stay, and a key row that names
-- another job than the one read is kept.
begin;
select plan(5);

-- Jobs in history: an available holder, a cancelled holder displaced by a new one.
create temp table live as select * from awa.insert_job('cu.k', '{"n": 1}', '{"queue": "cu", "unique": {"by_args": true}}');
create temp table old as select * from awa.insert_job('cu.k', '{"n": 2}', '{"queue": "cu", "unique": {"by_args": true}}');
select awa.cancel_job((select id from old));
create temp table new as select * from awa.insert_job('cu.k', '{"n": 2}', '{"queue": "cu", "unique": {"by_args": true}}');
-- Jobs history no longer has (ids no job ever had): a key row and a displaced record.
insert into awa.unique_keys (unique_key, job_id, states, taken_at)
values ('\x01', 9000000001, '{available}', now() - interval '1 day');
insert into awa.unique_released (job_id, unique_key, states) values (9000000002, '\x02', '{available}');

select bag_eq($$select job_id, unique_key, displaced from awa.cleanup_unique_keys()$$,
              $$values (9000000001::bigint, '\x01'::bytea, false), (9000000002, '\x02'::bytea, true)$$,
              'the rows of the two jobs that are gone are deleted and returned');
select bag_eq($$select job_id from awa.unique_keys$$,
              $$select id from live union all select id from new$$,
              'the key rows of the jobs in history stay');
select bag_eq($$select job_id from awa.unique_released$$, $$select id from old$$,
              'the displaced record of a cancelled job the queue ring holds stays');
select is_empty($$select * from awa.cleanup_unique_keys()$$, 'a second call finds nothing');
select results_eq($$select id, duplicate from awa.insert_unique_job('cu.k', '{"n": 1}', '{"queue": "cu", "unique": {"by_args": true}}')$$,
                  $$select id, true from live$$, 'a kept key still holds');

select * from finish();
rollback;
