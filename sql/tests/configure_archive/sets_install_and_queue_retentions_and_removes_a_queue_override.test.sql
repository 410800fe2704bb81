-- configure_archive sets the install's retention per state (queue '*') and a
-- queue's override, returns the rows of that scope, keeps keys not given, and
-- a null removes a queue's override so the install's applies again.
begin;
select plan(5);

select results_eq(
  $$select queue, state::text, retention from awa.archive_retention order by queue, state$$,
  $$values ('*'::text, 'cancelled'::text, interval '7 days'), ('*', 'completed', interval '24 hours'),
           ('*', 'failed', interval '7 days')$$,
  'an install starts with completed 24 h, failed and cancelled 7 days');

select results_eq(
  $$select queue, state::text, retention from awa.configure_archive('{"completed_seconds": 3600}')$$,
  $$values ('*'::text, 'completed'::text, interval '1 hour'), ('*', 'cancelled', interval '7 days'),
           ('*', 'failed', interval '7 days')$$,
  'the install''s completed retention changes, the others are kept');

select results_eq(
  $$select queue, state::text, retention from awa.configure_archive('{"failed_seconds": 0, "cancelled_seconds": 60}', 'mail')$$,
  $$values ('mail'::text, 'cancelled'::text, interval '1 minute'), ('mail', 'failed', interval '0')$$,
  'a queue gets overrides of its own (0: not archived)');

select results_eq(
  $$select queue, state::text from awa.configure_archive('{"failed_seconds": null}', 'mail')$$,
  $$values ('mail'::text, 'cancelled'::text)$$,
  'null removes the queue''s override of that state');

select is((select count(*)::int from awa.archive_retention where queue = '*'), 3,
          'the install''s rows are untouched by the queue''s');

select * from finish();
rollback;
