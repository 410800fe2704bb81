-- insert_job and insert_jobs take a fast path when awa._request_plain accepts
-- a request; anything it declines goes through awa._validate_job. Edge cases
-- of tags (the check the fast path does with a JSON path): what it accepts
-- must be valid, and what it declines among valid requests still inserts.
begin;
select plan(10);

select is(awa._request_plain('k', '{}', jsonb_build_object('tags', jsonb_build_array(repeat('é', 100)))), true,
          'a tag of 100 multibyte characters is plain');
select is(awa._request_plain('k', '{}', jsonb_build_object('tags', jsonb_build_array(repeat('a', 101)))), false,
          'a tag of 101 characters is not');
select is(awa._request_plain('k', '{}', jsonb_build_object('tags', jsonb_build_array(repeat(E'a\n', 50)))), true,
          'a tag of 100 characters with newlines is plain');
select is(awa._request_plain('k', '{}', '{"tags": [""]}'), false, 'an empty tag is not');
select is(awa._request_plain('k', '{}', '{"tags": [1]}'), false, 'a number tag is not');
select is(awa._request_plain('k', '{}', jsonb_build_object('tags', (select jsonb_agg(i::text) from generate_series(1, 21) i))),
          false, '21 tags are not');
select is(awa._request_plain('k', '{}', '{"priority": 2.0}'), false, 'priority 2.0 is not plain (validation decides)');

select lives_ok($$select * from awa.insert_job('k', '{}', jsonb_build_object('tags', jsonb_build_array(repeat('é', 100), repeat(E'a\n', 50))))$$,
                'the plain multibyte and newline tags insert');
select results_eq($$select tags from awa.jobs where kind = 'k' and tags[1] = repeat('é', 100)$$,
                  $$values (array[repeat('é', 100), repeat(E'a\n', 50)])$$, 'with their tags in order');
select is((select priority from awa.insert_job('k2', '{}', '{"priority": 2.0}')), 2::smallint,
          'a valid request the fast path declines still inserts');

select * from finish();
rollback;
