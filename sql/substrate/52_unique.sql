-- Unique jobs: one row per uniqueness key in use, naming the job that holds
-- it and the states that hold it (its mask). Written only by inserts of jobs
-- that ask for uniqueness (opts.unique), never by the hot path of other jobs,
-- nor by any finalizer: a key is released lazily, when the next insert of the
-- key finds its holder outside the mask (or gone from history) and takes the
-- row over under its row lock (docs/storage.md, "Unique jobs").
-- unique_key is the SHA-256 of the key's canonical components
-- (awa._unique_key).
CREATE TABLE awa.unique_keys (
    unique_key bytea         PRIMARY KEY,
    job_id     bigint        NOT NULL,
    states     awa.job_state[] NOT NULL,
    taken_at   timestamptz   NOT NULL
);

-- An operator retry of a terminal job finds whether it holds a key.
CREATE INDEX unique_keys_job_id ON awa.unique_keys (job_id);

-- Holders displaced by a takeover while their job is still in history: an
-- operator retry (awa.retry_job, awa.retry_dlq_job) of such a job must take
-- its key back first, or refuse while another job holds it in its mask.
-- Removed by that retry, or by awa.prune_unique_keys once the job has left
-- history.
CREATE TABLE awa.unique_released (
    job_id     bigint          PRIMARY KEY,
    unique_key bytea           NOT NULL,
    states     awa.job_state[] NOT NULL
);

-- Where awa.cleanup_unique_keys stopped: it reads the key rows in job id
-- order a limit at a time, from here (0: from the first). One row.
CREATE TABLE awa.unique_cleanup_cursor (
    only_row     boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    after_job_id bigint  NOT NULL
);
