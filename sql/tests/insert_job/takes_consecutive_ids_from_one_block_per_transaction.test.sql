-- The single inserts of one transaction take consecutive ids from one block
-- of awa.job_id_seq (awa._next_job_id): 1,024 of them fill the block, which
-- starts at 1 mod 1,024, and the 1,025th draws the next block. Every job is
-- stored under the id it was given.
begin;
select plan(5);

create temp table ins (ord int primary key, id bigint);
do $$
begin
  for i in 1 .. 1025 loop
    insert into ins select i, j.id from awa.insert_job('blk.k', jsonb_build_object('i', i), '{"queue": "blk"}') as j;
  end loop;
end $$;

select is((select id % 1024 from ins where ord = 1), 1::bigint, 'the first id starts a block (1 mod 1,024)');
select is((select count(*) from ins where ord <= 1024 and id = (select id from ins where ord = 1) + ord - 1), 1024::bigint,
          'the first 1,024 inserts take the block''s ids in order');
select ok((select id from ins where ord = 1025) > (select id from ins where ord = 1024)
          and (select id from ins where ord = 1025) % 1024 = 1,
          'the 1,025th draws the next block, above the first');
select is((select count(distinct id) from ins), 1025::bigint, 'every id is distinct');
select is((select count(*) from ins i join awa.jobs j on j.id = i.id and j.args = jsonb_build_object('i', i.ord)),
          1025::bigint, 'each job is stored under its id');

select * from finish();
rollback;
