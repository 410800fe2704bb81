-- A ttl below 1 second (zero, a fraction of a second, negative) or above 1
-- hour (2 hours, or 1 hour and a microsecond) raises AW010 naming the ttl and
-- writes nothing, even from the current holder.
begin;
select plan(4);

select awa_test.held_lease();
create temp table counts_before as select awa_test.row_counts() as c;

create temp table bad (name text, holder uuid, ttl text, shown text);
insert into bad values
  ('maintenance', '00000000-0000-0000-0000-0000000000a1', '0', '00:00:00'),
  ('other', '00000000-0000-0000-0000-0000000000b1', '999 milliseconds', '00:00:00.999'),
  ('other', '00000000-0000-0000-0000-0000000000b1', '-30 seconds', '-00:00:30'),
  ('maintenance', '00000000-0000-0000-0000-0000000000a1', '2 hours', '02:00:00'),
  ('other', '00000000-0000-0000-0000-0000000000b1', '1 hour 0.000001 seconds', '01:00:00.000001');
create temp table got as
select b.ttl, awa_test.outcome(format('select * from awa.acquire_leader_lease(%L, %L, %L, %L)',
                                      b.name, b.holder, b.ttl, '2030-01-01 12:00:10+00')) as o
from bad b;

select results_eq(
  $$select g.ttl, g.o ->> 'sqlstate', g.o ->> 'message' from got g join bad b using (ttl) order by b.shown$$,
  $$select b.ttl, 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got ' || b.shown from bad b order by b.shown$$,
  'each ttl (0, 999 ms, -30 s, 2 h, 1 h + 1 us) raises AW010 naming it, the holder''s own included');
select is_empty($$select ttl, o -> 'written' from got where o -> 'written' <> '{}'$$, 'no such call writes anything');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select awa_test.only_the_held_lease('the holder''s lease is not renewed and no other lease exists');

select * from finish();
rollback;
