-- A list of valid queue names (letters, digits, _ . : -, up to 50
-- characters) is accepted and writes no table.
--
-- LISTEN takes effect only when the calling transaction commits, and a pgTAP
-- test runs in one transaction that it rolls back, so the channels this call
-- registers ("awa:<queue>") are never observable here: inside the
-- transaction pg_listening_channels() does not list them yet, and the
-- rollback discards them. That the committed session listens on each channel
-- is left to the Go tests.
begin;
select plan(4);

select lives_ok(
  $$select awa.listen_queues(array['default', 'Q9', 'a-b_c.d:e', repeat('x', 50)])$$,
  'a list of valid queue names, one of 50 characters, is accepted');
select lives_ok($$select awa.listen_queues(array['default', 'default'])$$, 'a repeated queue name is accepted');
select awa_test.writes_nothing($$select awa.listen_queues(array['default', 'emails'])$$,
  'listening writes no awa table');
select is_empty($$select * from pg_listening_channels()$$,
  'inside the calling transaction the LISTEN is still pending (it takes effect at commit)');

select * from finish();
rollback;
