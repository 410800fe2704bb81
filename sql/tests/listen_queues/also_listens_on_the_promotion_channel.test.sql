-- Besides the queues' channels and the control channel, awa.listen_queues
-- makes the session listen on "awa:+promote", where awa._wake_promoter wakes
-- the maintenance leader; even with no queue. (The LISTEN commits: it writes
-- no table.)
select awa.listen_queues(array['lp']);
select array(select c from pg_listening_channels() c order by c) as with_queue \gset
unlisten *;
select awa.listen_queues(array[]::text[]);
select array(select c from pg_listening_channels() c order by c) as without_queue \gset
unlisten *;

begin;
select plan(2);
select is(:'with_queue'::text[], array['awa:', 'awa:+promote', 'awa:lp'],
          'a queue''s channel, the control channel and the promotion channel');
select is(:'without_queue'::text[], array['awa:', 'awa:+promote'],
          'with no queue: the control channel and the promotion channel');
select * from finish();
rollback;
