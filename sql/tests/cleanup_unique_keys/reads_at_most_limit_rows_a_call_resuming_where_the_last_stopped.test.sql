-- A call reads at most limit key rows, in job id order, from where the last
-- call stopped: a live holder among the first rows does not make every call
-- read the whole table again; after the last row the next call starts from
-- the first.
begin;
select plan(7);

-- Job ids no job ever had (gone from history), around a live holder.
create temp table live as select * from awa.insert_job('cr.k', '{"n": 1}', '{"queue": "cr", "unique": {"by_args": true}}');
insert into awa.unique_keys (unique_key, job_id, states, taken_at)
select decode(lpad(to_hex(n), 2, '0'), 'hex'), 9100000000 + n, '{available}', now() from generate_series(1, 4) n;
delete from awa.unique_cleanup_cursor;

select bag_eq($$select job_id from awa.cleanup_unique_keys(2)$$, $$values (9100000001::bigint)$$,
              'the first call (limit 2) reads the live holder and the first gone row, and deletes the gone one');
select is((select after_job_id from awa.unique_cleanup_cursor), 9100000001::bigint,
          'the cursor stops at the last row read');
select bag_eq($$select job_id from awa.cleanup_unique_keys(2)$$, $$values (9100000002::bigint), (9100000003)$$,
              'the second call resumes after it: the next two rows');
select bag_eq($$select job_id from awa.cleanup_unique_keys(2)$$, $$values (9100000004::bigint)$$,
              'the third call reads the last row (one row, short of the limit)');
select is((select after_job_id from awa.unique_cleanup_cursor), 0::bigint,
          'a call that read fewer rows than its limit sends the next one back to the first row');
select is_empty($$select * from awa.cleanup_unique_keys(2)$$, 'from the first row again, nothing is gone');
select results_eq($$select job_id from awa.unique_keys$$, $$select id from live$$, 'the live holder''s key stays');

select * from finish();
rollback;
