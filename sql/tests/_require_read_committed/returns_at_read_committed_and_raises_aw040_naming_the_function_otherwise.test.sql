-- awa._require_read_committed returns quietly at READ COMMITTED and raises
-- AW040 at REPEATABLE READ and SERIALIZABLE, naming the function and the
-- level and saying what to do. (One transaction per level; the reports cross
-- the rollbacks in psql variables.)
begin isolation level repeatable read;
select awa_test.outcome($$select awa._require_read_committed('awa.some_call')$$) as rr \gset
rollback;
begin isolation level serializable;
select awa_test.outcome($$select awa._require_read_committed('awa.some_call')$$) as sr \gset
rollback;
begin isolation level read committed;
select awa_test.outcome($$select awa._require_read_committed('awa.some_call')$$) as rc \gset
rollback;

begin;
select plan(9);
select * from awa_test.refused_outside_read_committed('awa.some_call', :'rr', :'sr');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'at read committed it returns');
select ok(:'rr'::jsonb ->> 'message' like '%run the call in its own read committed transaction%', 'the message says what to do');
select is(:'rr'::jsonb ->> 'message',
  'awa: awa.some_call needs a read committed transaction, this one is repeatable read: run the call in its own read committed transaction',
  'the message is lower-case and starts with awa:');
select * from finish();
rollback;
