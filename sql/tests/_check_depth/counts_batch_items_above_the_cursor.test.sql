-- awa._check_depth counts both ready planes: a batch row's items above its
-- lane's cursor (after a claim that stopped in its middle too) add to the
-- per-row jobs against max_depth.
begin;
select plan(5);

select * from awa.insert_jobs(array['cd.k', 'cd.k'], null, array_fill('{"queue": "cd"}'::jsonb, array[2]));
select awa_test.batch_row(array_fill('cd.k'::text, array[5]), null, array_fill('{"queue": "cd"}'::jsonb, array[5]));
select throws_ok($$select awa._check_depth('cd', 7, 1)$$, 'AW060', null,
                 'two per-row jobs and five batch items: one more passes a max_depth of 7');
select lives_ok($$select awa._check_depth('cd', 8, 1)$$, 'and fits 8');
select * from awa.claim_ready_runtime('cd', 3);
select throws_ok($$select awa._check_depth('cd', 4, 1)$$, 'AW060', null,
                 'three claimed (into the row''s middle): four items left, one more passes 4');
select lives_ok($$select awa._check_depth('cd', 5, 1)$$, 'and fits 5');
select awa_test.batch_row(array_fill('cd.k'::text, array[3]), null, array_fill('{"queue": "cd"}'::jsonb, array[3]));
select throws_ok($$select awa._check_depth('cd', 7, 1)$$, 'AW060', null, 'a second batch row counts too');

select * from finish();
rollback;
