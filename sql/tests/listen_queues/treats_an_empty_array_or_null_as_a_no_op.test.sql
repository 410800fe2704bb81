-- An empty array or a NULL array listens on no queue (the control channel
-- only) and raises nothing.
begin;
select plan(3);

select lives_ok($$select awa.listen_queues(array[]::text[])$$, 'an empty array is accepted');
select lives_ok($$select awa.listen_queues(null)$$, 'a NULL array is accepted');
select awa_test.writes_nothing($$select awa.listen_queues(null)$$, 'a NULL array writes nothing');

select * from finish();
rollback;
