-- Job ids in blocks of 1,024 (issue 14, docs/storage.md "Job ids"): each
-- nextval of awa.job_id_seq is the first id of a fresh block. The ALTER
-- rewrites the sequence, so a migration that fails leaves it as it was; its
-- lock (which nextval's waits for) is taken with the tables' by the
-- migration's first block. The next block then starts at the first id
-- above every id drawn so far that is 1 mod 1,024, as a fresh install's
-- blocks do (1, 1025, ...): a single insert uses a whole block
-- (awa._next_job_id).
-- covers: sql/substrate/00_schema.sql
ALTER SEQUENCE awa.job_id_seq INCREMENT BY 1024;
SELECT setval('awa.job_id_seq',
              ((CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END) + 1023) / 1024 * 1024 + 1,
              false)
FROM awa.job_id_seq s;
