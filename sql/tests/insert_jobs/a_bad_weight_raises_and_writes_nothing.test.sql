-- opts.weight must be an integer (AW005) in 1..100000 (AW006); a bad one
-- writes nothing.
begin;
select plan(6);

select * from awa_test.raises_writing_nothing($$select * from awa.insert_jobs(array['k'], null, array['{"weight": "2"}']::jsonb[])$$,
  'AW005', 'awa: opts.weight must be an integer, got "2"', 'a string weight raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_jobs(array['k'], null, array['{"weight": 0}']::jsonb[])$$,
  'AW006', 'awa: opts.weight must be between 1 and 100000, got 0', 'weight 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_jobs(array['k'], null, array['{"weight": 100001}']::jsonb[])$$,
  'AW006', 'awa: opts.weight must be between 1 and 100000, got 100001', 'a weight over 100000 raises AW006');

select * from finish();
rollback;
