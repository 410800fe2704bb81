-- awa.job(id) of an id no job has (or no longer retained) returns no row,
-- like the view, not an error.
begin;
select plan(2);

select awa_test.state_fixture();

select is_empty($$select * from awa.job((select max(id) + 1000 from fx))$$, 'an unknown id returns no row');
select is_empty($$select * from awa.job(-1)$$, 'a negative id returns no row');

select * from finish();
rollback;
