-- awa._require_read_committed(function): returns when the current transaction
-- runs at READ COMMITTED; otherwise raises AW040 naming the function and the
-- transaction's level. Functions that read queue state to decide a write call
-- it first: with a REPEATABLE READ or SERIALIZABLE snapshot taken before the
-- call they would decide on stale state (see docs/storage.md, "Isolation
-- levels"). One setting read; no lock, no write.
-- Errors: AW040 transaction not at READ COMMITTED.
-- Called first by claim_ready_runtime, the finalizers (through awa._finalize),
-- cancel_job, the rescues, promote_due_jobs, rotate_ring, prune_ring,
-- retry_dlq_job, purge_dlq and cleanup_runtime_instances.
CREATE FUNCTION awa._require_read_committed(p_function text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'awa: % needs a read committed transaction, this one is %: run the call in its own read committed transaction',
            p_function, current_setting('transaction_isolation')
            USING ERRCODE = 'AW040',
                  HINT = 'BEGIN ISOLATION LEVEL READ COMMITTED; SELECT ...; COMMIT; (or SET default_transaction_isolation for the session)';
    END IF;
END;
$$;
