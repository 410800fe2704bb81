-- Two or more jobs of one key in one call: the first (input order) is
-- inserted, the later ones come back as it, duplicate true; jobs without
-- unique options are inserted as awa.insert_jobs would, duplicate false. Rows
-- come back in input order.
begin;
select plan(3);

create temp table out as
select row_number() over () as ord, *
from awa.insert_unique_jobs(
  array['b.k', 'b.k', 'b.plain', 'b.k', 'b.k'],
  array['{"x": 2}', '{"x": 1}', '{}', '{"x": 1}', '{"x": 2}']::jsonb[],
  array['{"queue": "b", "unique": {"by_args": true}}', '{"queue": "b", "unique": {"by_args": true}}',
        '{"queue": "b"}', '{"queue": "b", "unique": {"by_args": true}}',
        '{"queue": "b", "unique": {"by_args": true}}']::jsonb[]);

select results_eq($$select ord, duplicate from out order by ord$$,
                  $$values (1::bigint, false), (2, false), (3, false), (4, true), (5, true)$$,
                  'the first job of each key and the plain job are new; the later ones are duplicates');
select results_eq($$select (select id from out where ord = 4), (select id from out where ord = 5)$$,
                  $$select (select id from out where ord = 2), (select id from out where ord = 1)$$,
                  'each duplicate is the first job of its key');
select is((select count(*) from awa.ready_entries where queue = 'b'), 3::bigint, 'three ready rows: two keys and the plain job');

select * from finish();
rollback;
