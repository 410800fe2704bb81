package driver

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrInvalidConfig: NewClient rejected a Config (or MaintenanceConfig) field
// outside its documented range; the message names the field and its value.
var ErrInvalidConfig = errors.New("awa: invalid config")

// ErrSubstrateVersion: the database's substrate (awa.substrate_version()) is
// neither SubstrateVersion nor PreviousSubstrateVersion, or has no version at
// all. The message names both versions and what to run (`awa migrate up`, or
// a newer client). Client.Start and Driver.CheckSubstrateVersion return it.
var ErrSubstrateVersion = errors.New("awa: substrate version not supported")

// ErrTransactionPooler: Client.Start, or the first insert of a client that
// has not started, found that its pool reaches PostgreSQL through a
// transaction-mode pooler (such as PgBouncer with pool_mode =
// transaction) while the pool's pgx exec mode needs session state the pooler
// does not keep (cache_statement, the default, or describe_exec). Set
// default_query_exec_mode to exec, simple_protocol or cache_describe
// (docs/poolers.md).
var ErrTransactionPooler = errors.New("awa: transaction pooler in an unsupported pgx exec mode")

// ErrMaintenancePrivileges: Client.Start of a client that takes part in
// maintenance leader election (Config.DisableMaintenance not set) found that
// its database role may not execute routines the maintenance leader calls;
// the message names the role and the routines. Grant the login role
// awa_admin, or set DisableMaintenance and run maintenance elsewhere
// (docs/privileges.md).
var ErrMaintenancePrivileges = errors.New("awa: role may not run maintenance")

// ErrStaleAttempt: a write for an attempt that is no longer open (rescued,
// cancelled, finalized, or superseded by a newer claim) was rejected and
// changed nothing. JobRow.SetProgress and Driver.SetProgress return it as a
// *StaleAttemptError. Finalizers report the same case as Stale results.
var ErrStaleAttempt = errors.New("awa: stale attempt")

// StaleAttemptError names the attempt whose write was rejected as stale.
// errors.Is(err, ErrStaleAttempt) holds.
type StaleAttemptError struct {
	JobID    int64
	RunLease int64
}

func (e *StaleAttemptError) Error() string {
	return fmt.Sprintf("awa: stale attempt: job %d run_lease %d is no longer open", e.JobID, e.RunLease)
}

// Is makes errors.Is(err, ErrStaleAttempt) hold.
func (e *StaleAttemptError) Is(target error) bool { return target == ErrStaleAttempt }

// Sentinel errors for the SQLSTATEs the substrate raises (docs/errors.md).
// Errors returned by this package wrap both the sentinel and the
// *pgconn.PgError, so errors.Is and errors.As work on either. The entries
// look alike on purpose: one documented sentinel per SQLSTATE.
var (
	// ErrInvalidKind (AW001): the job kind is empty or longer than 255 characters.
	ErrInvalidKind = errors.New("awa: invalid kind")
	// ErrInvalidQueue (AW002): the queue name is empty, too long or uses characters outside [A-Za-z0-9_.:-].
	ErrInvalidQueue = errors.New("awa: invalid queue")
	// ErrInvalidArgs (AW003): the job args are not a JSON object.
	ErrInvalidArgs = errors.New("awa: invalid args")
	// ErrUnknownOption (AW004): an option key the function does not know.
	ErrUnknownOption = errors.New("awa: unknown option")
	// ErrInvalidOption (AW005): an option of the wrong type or malformed.
	ErrInvalidOption = errors.New("awa: invalid option")
	// ErrOptionOutOfRange (AW006): priority, max_attempts, a deadline or enqueue_shards outside its range.
	ErrOptionOutOfRange = errors.New("awa: option out of range")
	// ErrInvalidTags (AW007): too many tags, or an empty or over-long tag.
	ErrInvalidTags = errors.New("awa: invalid tags")
	// ErrInvalidArgument (AW010): a bad function argument (batch size, array lengths, limits, ring name).
	ErrInvalidArgument = errors.New("awa: invalid argument")
	// ErrJobNotFound (AW020): no such job, or it is no longer retained.
	ErrJobNotFound = errors.New("awa: job not found")
	// ErrInvalidJobState (AW021): the operation does not apply to the job's current state.
	ErrInvalidJobState = errors.New("awa: invalid job state")
	// ErrCallbackNotRegistered (AW022): a park of an open attempt that registered no callback.
	ErrCallbackNotRegistered = errors.New("awa: callback not registered")
	// ErrInvalidPeriodicJob (AW050): a periodic job's name, schedule, time zone or missed policy is not one it can have.
	ErrInvalidPeriodicJob = errors.New("awa: invalid periodic job")
	// ErrPeriodicJobNotFound (AW051): no periodic job of that name.
	ErrPeriodicJobNotFound = errors.New("awa: periodic job not found")
	// ErrRingConfigConflict (AW031): an installed ring cannot change its slot count.
	ErrRingConfigConflict = errors.New("awa: ring config conflict")
	// ErrReadCommittedRequired (AW040): a claim, finalizer, cancel, rescue or
	// maintenance call ran in a transaction that is not READ COMMITTED. Run
	// it in its own READ COMMITTED transaction. (The Client does so by itself
	// when the database's default isolation is another level.)
	ErrReadCommittedRequired = errors.New("awa: read committed required")
	// ErrQueueFull (AW060): an insert of jobs due now would take the queue's
	// available jobs above its max_depth (backpressure); nothing was
	// inserted. Retry later.
	ErrQueueFull = errors.New("awa: queue full")
)

var sentinelBySQLState = map[string]error{
	"AW001": ErrInvalidKind,
	"AW002": ErrInvalidQueue,
	"AW003": ErrInvalidArgs,
	"AW004": ErrUnknownOption,
	"AW005": ErrInvalidOption,
	"AW006": ErrOptionOutOfRange,
	"AW007": ErrInvalidTags,
	"AW010": ErrInvalidArgument,
	"AW020": ErrJobNotFound,
	"AW021": ErrInvalidJobState,
	"AW022": ErrCallbackNotRegistered,
	"AW031": ErrRingConfigConflict,
	"AW040": ErrReadCommittedRequired,
	"AW050": ErrInvalidPeriodicJob,
	"AW051": ErrPeriodicJobNotFound,
	"AW060": ErrQueueFull,
}

// SQLError is a substrate error: its SQLSTATE's sentinel plus the server's
// error, whose message names the offending value.
type SQLError struct {
	Sentinel error
	PgErr    *pgconn.PgError
}

func (e *SQLError) Error() string { return e.PgErr.Message }

// Unwrap exposes both the sentinel and the *pgconn.PgError.
func (e *SQLError) Unwrap() []error { return []error{e.Sentinel, e.PgErr} }

// mapError wraps a substrate SQLSTATE in its sentinel; other errors pass through.
func mapError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if sentinel, ok := sentinelBySQLState[pgErr.Code]; ok {
			return &SQLError{Sentinel: sentinel, PgErr: pgErr}
		}
	}
	return err
}
