-- configure_queue refuses a max_depth that is not an integer (AW005) or is
-- outside 1..1000000000 (AW006), writing nothing; null removes it.
begin;
select plan(9);

select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"max_depth": "10"}')$$,
  'AW005', 'awa: opts.max_depth must be an integer or null, got "10"', 'a string max_depth raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"max_depth": 0}')$$,
  'AW006', 'awa: opts.max_depth must be between 1 and 1000000000, got 0', 'max_depth 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"max_depth": 1000000001}')$$,
  'AW006', 'awa: opts.max_depth must be between 1 and 1000000000, got 1000000001', 'a max_depth over 1e9 raises AW006');
select * from awa.configure_queue('q', '{"max_depth": 7}');
select is((select max_depth from awa.queue_options where queue = 'q'), 7, 'max_depth is kept in awa.queue_options');
select * from awa.configure_queue('q', '{"max_depth": null}');
select is((select max_depth from awa.queue_options where queue = 'q'), null::int, 'null removes it');
select is((select count(*) from awa.queue_options where queue = 'q2'), 0::bigint, 'a queue never configured has no row');

select * from finish();
rollback;
