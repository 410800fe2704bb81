-- A producer needs no CREATE privilege on schema awa, even for a queue that
-- does not exist yet: a new queue creates rows only. The role here has USAGE
-- on the schema and the table, sequence and function privileges of a
-- producer, and no CREATE.
begin;
select plan(3);

create role awa_test_producer_nc nologin;
grant usage on schema awa to awa_test_producer_nc;
grant select, insert on all tables in schema awa to awa_test_producer_nc;
grant usage on all sequences in schema awa to awa_test_producer_nc;
grant execute on all functions in schema awa to awa_test_producer_nc;

select is(has_schema_privilege('awa_test_producer_nc', 'awa', 'CREATE'), false,
          'the producer role has no CREATE on schema awa (fixture)');

set local role awa_test_producer_nc;
select lives_ok($$select * from awa.insert_job('k', '{}', '{"queue": "no_create_q", "priority": 1}')$$,
                'it inserts the first job of a new queue');
reset role;

select is((select count(*) from awa.jobs where queue = 'no_create_q' and state = 'available'), 1::bigint,
          'the job is available');

select * from finish();
rollback;
