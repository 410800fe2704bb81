-- A job that is already completed, cancelled, failed or in the DLQ cannot be
-- cancelled: AW021 naming its state, and nothing is written.
begin;
select plan(5);

select * from awa.configure_queue('cqd', '{"dlq": true}');
create temp table j (name text, id bigint);
insert into j select 'completed', id from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
insert into j select 'failed', id from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
insert into j select 'dlq', id from awa.insert_job('cancel.k', '{}', '{"queue": "cqd"}');
create temp table c as
select * from awa.claim_ready_runtime('cq', 2, null, now()) union all select * from awa.claim_ready_runtime('cqd', 1, null, now());
select * from awa.complete_jobs(array[(select id from j where name = 'completed')],
                                array(select run_lease from c where id = (select id from j where name = 'completed')),
                                array(select claim_slot from c where id = (select id from j where name = 'completed')),
                                array(select receipt_id from c where id = (select id from j where name = 'completed')), now());
select * from awa.fail_jobs(array(select id from c where id <> (select id from j where name = 'completed') order by id),
                            array(select run_lease from c where id <> (select id from j where name = 'completed') order by id),
                            array(select claim_slot from c where id <> (select id from j where name = 'completed') order by id),
                            array(select receipt_id from c where id <> (select id from j where name = 'completed') order by id),
                            array['bad', 'bad'], now());
insert into j select 'cancelled', id from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
select * from awa.cancel_job((select id from j where name = 'cancelled'), null, now());

create temp table before as select awa_test.row_counts() as c;

select throws_ok(format('select * from awa.cancel_job(%s)', w.id), 'AW021',
                 format('awa: job %s is already %s', w.id, w.state), format('cancelling %s raises AW021', w.what))
from (values ((select id from j where name = 'completed'), 'completed', 'a completed job'),
             ((select id from j where name = 'cancelled'), 'cancelled', 'a cancelled job'),
             ((select id from j where name = 'failed'), 'failed', 'a failed job'),
             ((select id from j where name = 'dlq'), 'failed', 'a job held in the DLQ')) as w (id, state, what);

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
