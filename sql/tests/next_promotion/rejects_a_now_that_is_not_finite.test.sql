-- An infinite now has no wait to report: AW010 naming it, nothing written.
begin;
select plan(3);

select awa.insert_job('np.k', '{}', jsonb_build_object('queue', 'np_i', 'run_at', now() + interval '10 seconds'));

select throws_ok($$select * from awa.next_promotion('infinity')$$, 'AW010',
                 'awa: now must be a finite time, got infinity', 'now infinity raises AW010');
select throws_ok($$select * from awa.next_promotion('-infinity')$$, 'AW010',
                 'awa: now must be a finite time, got -infinity', 'now -infinity raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('select * from awa.next_promotion(''infinity'')')$$,
                               'the refused call writes nothing');

select * from finish();
rollback;
