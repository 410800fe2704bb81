-- Queue pause (awa.queue_pauses) and priority aging (queue_meta.aging), issue 9.
-- covers: sql/substrate/10_control.sql
ALTER TABLE awa.queue_meta ADD COLUMN aging interval CHECK (aging IS NULL OR aging > interval '0');
CREATE TABLE awa.queue_pauses (
    queue     text        PRIMARY KEY,
    paused_at timestamptz NOT NULL
);
