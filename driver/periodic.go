package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/robfig/cron/v3"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// MissedPolicy says what the maintenance leader does with the fire times of
// a periodic job that passed while no leader ran (a leader was down, or
// failed over, for longer than one period).
type MissedPolicy string

// Missed policies.
const (
	// MissedFireOnce fires one job for all the missed times, at the latest
	// of them; its metadata's "periodic" object says where the span began
	// ("missed_from"). The default.
	MissedFireOnce MissedPolicy = "fire_once"
	// MissedSkip fires none of them: the schedule goes on from its next time.
	MissedSkip MissedPolicy = "skip"
)

// PeriodicJob declares a periodic (cron) job in Config.PeriodicJobs. The
// client that becomes maintenance leader stores its declarations
// (awa.upsert_periodic_job) and fires them: each fire time is enqueued once
// whichever process leads, and whenever a leader dies (docs/periodic.md).
type PeriodicJob struct {
	// Name identifies the schedule in the database: 1 to 100 characters of
	// [A-Za-z0-9_.:-], unique among Config.PeriodicJobs. Required.
	Name string
	// Schedule is a standard 5-field cron spec (minute hour day-of-month
	// month day-of-week, e.g. "*/15 9-17 * * MON-FRI") or a descriptor:
	// @yearly, @monthly, @weekly, @daily, @hourly, or "@every <duration>"
	// (at least 1s, whole seconds; its times count from when the schedule is
	// first evaluated). Parsed by github.com/robfig/cron/v3. Required.
	Schedule string
	// TimeZone is the IANA zone the spec is read in ("Europe/Paris").
	// Defaults to "UTC".
	TimeZone string
	// Args is the job each fire enqueues. Required.
	Args JobArgs
	// Opts are its insert options; RunAt must be zero (the fire time sets
	// it). The job's Metadata gets a "periodic" object (name, fire_at) over
	// these. Defaults to the insert defaults.
	Opts *InsertOpts
	// Missed is what happens to fire times that passed while no leader ran.
	// Defaults to MissedFireOnce.
	Missed MissedPolicy
}

// PeriodicJobParams declares a periodic job from raw kind and JSON args
// (Driver.UpsertPeriodicJob); the fields are those of PeriodicJob.
type PeriodicJobParams struct {
	Name     string
	Schedule string
	TimeZone string // "" is UTC
	Kind     string
	Args     []byte // a JSON object; nil is {}
	Opts     InsertOpts
	Missed   MissedPolicy // "" is MissedFireOnce
}

// PeriodicJobInfo is one periodic job as the database holds it.
type PeriodicJobInfo struct {
	Name, Schedule, TimeZone, Kind string
	Args, Opts                     json.RawMessage
	Missed                         MissedPolicy
	Paused                         bool
	// Revision counts the changes of Schedule or TimeZone.
	Revision int64
	// NextRunAt is the next fire time; zero until the leader computes it.
	NextRunAt time.Time
	// LastFiredAt is the fire time of the newest job it enqueued, LastJobID
	// that job (zero: none yet).
	LastFiredAt time.Time
	LastJobID   int64
	// Error says why the leader could not compute a fire time (the schedule
	// is not evaluated until an upsert or a resume).
	Error                string
	CreatedAt, UpdatedAt time.Time
}

func periodicJobInfo(r dbsqlc.AwaPeriodicJob) PeriodicJobInfo {
	return PeriodicJobInfo{Name: r.Name, Schedule: r.Schedule, TimeZone: r.Timezone, Kind: r.Kind, Args: r.Args,
		Opts: r.Opts, Missed: MissedPolicy(r.Missed), Paused: r.Paused, Revision: r.Revision, NextRunAt: r.NextRunAt.Time,
		LastFiredAt: r.LastFiredAt.Time, LastJobID: r.LastJobID.Int64, Error: r.ScheduleError.String,
		CreatedAt: r.CreatedAt.Time, UpdatedAt: r.UpdatedAt.Time}
}

// UpsertPeriodicJob declares a periodic job, or changes the one of that name
// (awa.upsert_periodic_job): a new Schedule or TimeZone makes the leader
// compute its next time anew; other changes keep it. A pause stays.
// Errors: ErrInvalidPeriodicJob (AW050), and those of Insert for the kind,
// args and opts.
func (d *Driver) UpsertPeriodicJob(ctx context.Context, db DBTX, p PeriodicJobParams) (PeriodicJobInfo, error) {
	opts, err := json.Marshal(p.Opts)
	if err != nil {
		return PeriodicJobInfo{}, fmt.Errorf("encode opts: %w", err)
	}
	args := p.Args
	if args == nil {
		args = []byte("{}")
	}
	tz, missed := p.TimeZone, p.Missed
	if tz == "" {
		tz = "UTC"
	}
	if missed == "" {
		missed = MissedFireOnce
	}
	row, err := d.q.UpsertPeriodicJob(ctx, d.on(db), dbsqlc.UpsertPeriodicJobParams{Name: p.Name, Schedule: p.Schedule,
		Kind: p.Kind, Args: args, Opts: opts, Timezone: tz, Missed: string(missed)})
	if err != nil {
		return PeriodicJobInfo{}, fmt.Errorf("upsert periodic job %q: %w", p.Name, mapError(err))
	}
	return periodicJobInfo(row), nil
}

// DeletePeriodicJob deletes a periodic job; the jobs it enqueued stay. A
// schedule a client's Config declares comes back at the next leader start.
// Errors: ErrPeriodicJobNotFound (AW051).
func (d *Driver) DeletePeriodicJob(ctx context.Context, db DBTX, name string) (PeriodicJobInfo, error) {
	row, err := d.q.DeletePeriodicJob(ctx, d.on(db), name)
	if err != nil {
		return PeriodicJobInfo{}, fmt.Errorf("delete periodic job %q: %w", name, mapError(err))
	}
	return periodicJobInfo(row), nil
}

// PausePeriodicJob pauses a periodic job: no fire from the commit on; the
// times that pass while paused never fire. Idempotent. Errors:
// ErrPeriodicJobNotFound (AW051).
func (d *Driver) PausePeriodicJob(ctx context.Context, db DBTX, name string) (PeriodicJobInfo, error) {
	row, err := d.q.PausePeriodicJob(ctx, d.on(db), dbsqlc.PausePeriodicJobParams{Name: name})
	if err != nil {
		return PeriodicJobInfo{}, fmt.Errorf("pause periodic job %q: %w", name, mapError(err))
	}
	return periodicJobInfo(row), nil
}

// ResumePeriodicJob resumes a paused periodic job (or one whose schedule the
// leader rejected): the leader schedules it from now on. Errors:
// ErrPeriodicJobNotFound (AW051).
func (d *Driver) ResumePeriodicJob(ctx context.Context, db DBTX, name string) (PeriodicJobInfo, error) {
	row, err := d.q.ResumePeriodicJob(ctx, d.on(db), dbsqlc.ResumePeriodicJobParams{Name: name})
	if err != nil {
		return PeriodicJobInfo{}, fmt.Errorf("resume periodic job %q: %w", name, mapError(err))
	}
	return periodicJobInfo(row), nil
}

// PeriodicJobs returns every periodic job, by name.
func (d *Driver) PeriodicJobs(ctx context.Context, db DBTX) ([]PeriodicJobInfo, error) {
	rows, err := d.q.ListPeriodicJobs(ctx, d.on(db))
	if err != nil {
		return nil, fmt.Errorf("list periodic jobs: %w", mapError(err))
	}
	out := make([]PeriodicJobInfo, len(rows))
	for i, r := range rows {
		out[i] = periodicJobInfo(r)
	}
	return out, nil
}

// PeriodicDue is a periodic job the leader must evaluate
// (awa.periodic_jobs_due): what it computes from, and Now, the database's
// clock at the call.
type PeriodicDue struct {
	Name      string
	Revision  int64
	Schedule  string
	TimeZone  string
	Missed    MissedPolicy
	NextRunAt time.Time // zero: not scheduled yet
	Now       time.Time
}

// PeriodicJobsDue returns up to max (1..10000) periodic jobs whose time has
// come or that have none yet, those first.
func (d *Driver) PeriodicJobsDue(ctx context.Context, db DBTX, max int) ([]PeriodicDue, error) {
	rows, err := d.q.PeriodicJobsDue(ctx, d.on(db), dbsqlc.PeriodicJobsDueParams{Max: int32(min(max, 1<<31-1))})
	if err != nil {
		return nil, fmt.Errorf("periodic jobs due: %w", mapError(err))
	}
	out := make([]PeriodicDue, len(rows))
	for i, r := range rows {
		out[i] = PeriodicDue{Name: r.Name, Revision: r.Revision, Schedule: r.Schedule, TimeZone: r.Timezone,
			Missed: MissedPolicy(r.Missed), NextRunAt: r.NextRunAt.Time, Now: r.Now.Time}
	}
	return out, nil
}

// PeriodicOutcome is what one fire step did.
type PeriodicOutcome string

// Fire step outcomes.
const (
	// PeriodicFired: a job was enqueued for the fire time.
	PeriodicFired PeriodicOutcome = "fired"
	// PeriodicScheduled: the next fire time was stored without a job (a
	// schedule's first time, or missed times skipped).
	PeriodicScheduled PeriodicOutcome = "scheduled"
	// PeriodicStale: the schedule had moved on (fired by another leader,
	// changed, paused, rejected or deleted): nothing was written.
	PeriodicStale PeriodicOutcome = "stale"
)

// PeriodicFireParams is one fire step (awa.fire_periodic_job): only while
// the schedule still has Revision and its next fire time is Expected (zero:
// none yet), enqueue its job for FireAt (zero: no job) and store NextRunAt.
type PeriodicFireParams struct {
	Name      string
	Revision  int64
	Expected  time.Time
	FireAt    time.Time
	NextRunAt time.Time
}

// PeriodicFire reports a fire step: JobID is set when Outcome is
// PeriodicFired; MissedFrom, when the job covers missed times, is the first
// of them (the job's FireAt the last).
type PeriodicFire struct {
	Name       string
	Outcome    PeriodicOutcome
	JobID      int64
	FireAt     time.Time
	MissedFrom time.Time
	NextRunAt  time.Time
}

// FirePeriodicJob runs one fire step: the job is enqueued and the next time
// stored in one transaction, once per fire time however many leaders try.
func (d *Driver) FirePeriodicJob(ctx context.Context, db DBTX, p PeriodicFireParams) (PeriodicFire, error) {
	row, err := d.q.FirePeriodicJob(ctx, d.on(db), dbsqlc.FirePeriodicJobParams{Name: p.Name, Revision: p.Revision,
		ExpectedNextRunAt: timestamptz(p.Expected), FireAt: timestamptz(p.FireAt),
		NewNextRunAt: pgtype.Timestamptz{Time: p.NextRunAt, Valid: true}})
	if err != nil {
		return PeriodicFire{}, fmt.Errorf("fire periodic job %q: %w", p.Name, mapError(err))
	}
	out := PeriodicFire{Name: row.Name, Outcome: PeriodicOutcome(row.Outcome), JobID: row.JobID.Int64,
		FireAt: row.FireAt.Time, NextRunAt: row.NextRunAt.Time}
	if out.Outcome == PeriodicFired && p.FireAt.After(p.Expected) {
		out.MissedFrom = p.Expected
	}
	return out, nil
}

// RejectPeriodicSchedule records why the leader cannot compute a fire time
// for the schedule at revision (awa.reject_periodic_schedule); it reports
// false when the schedule moved on meanwhile.
func (d *Driver) RejectPeriodicSchedule(ctx context.Context, db DBTX, name string, revision int64, reason string) (bool, error) {
	rows, err := d.q.RejectPeriodicSchedule(ctx, d.on(db), dbsqlc.RejectPeriodicScheduleParams{Name: name,
		Revision: revision, Error: reason})
	if err != nil {
		return false, fmt.Errorf("reject periodic schedule %q: %w", name, mapError(err))
	}
	return len(rows) > 0, nil
}

// cronParser reads what awa.upsert_periodic_job's shape check lets through:
// 5 fields and the descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// schedule is a parsed spec read in its zone.
type schedule struct {
	spec cron.Schedule
	loc  *time.Location
}

// parseSchedule parses spec in the IANA zone tz ("" is UTC; Go's "Local" is
// refused: it would differ from one leader to the next). A TZ= or CRON_TZ=
// prefix is refused (the zone has its own field, and robfig/cron panics on a
// prefix without a spec after it).
func parseSchedule(spec, tz string) (*schedule, error) {
	if tz == "" {
		tz = "UTC"
	}
	if up := strings.ToUpper(strings.TrimSpace(spec)); strings.HasPrefix(up, "TZ=") || strings.HasPrefix(up, "CRON_TZ=") {
		return nil, fmt.Errorf("schedule %q names a time zone: pass it as the time zone", spec)
	}
	if tz == "Local" {
		return nil, fmt.Errorf("time zone %q is each process's own: name an IANA zone, so every leader reads the schedule alike", tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", tz, err)
	}
	s, err := cronParser.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", spec, err)
	}
	return &schedule{spec: s, loc: loc}, nil
}

// next is the first fire time after t (zero: none within five years).
func (s *schedule) next(t time.Time) time.Time {
	return s.spec.Next(t.In(s.loc))
}

// catchUpWindow: a schedule far behind is caught up from this long before
// now, not from its first missed time (every spec fires at least daily or
// takes few steps from there).
const catchUpWindow = 25 * time.Hour

// catchUp returns, for a schedule whose next time was from (<= now), the
// last fire time at or before now (from itself when the time after it is
// still ahead) and the first one after now (zero: none within five years).
func (s *schedule) catchUp(from, now time.Time) (last, next time.Time) {
	last = from
	if every, ok := s.spec.(cron.ConstantDelaySchedule); ok {
		// Intervals count from their first time: step in whole periods.
		last = from.Add(now.Sub(from) / every.Delay * every.Delay)
		return last, last.Add(every.Delay)
	}
	if now.Sub(from) > catchUpWindow {
		if t := s.next(now.Add(-catchUpWindow)); !t.IsZero() && !t.After(now) {
			last = t
		}
	}
	for {
		n := s.next(last)
		if n.IsZero() || n.After(now) {
			return last, n
		}
		last = n
	}
}

// periodicStep is what the leader does for one due schedule: the arguments
// of its fire step, or why it rejects the schedule.
func periodicStep(s *schedule, due PeriodicDue) (PeriodicFireParams, error) {
	p := PeriodicFireParams{Name: due.Name, Revision: due.Revision, Expected: due.NextRunAt}
	if due.NextRunAt.IsZero() {
		p.NextRunAt = s.next(due.Now)
	} else {
		var last time.Time
		last, p.NextRunAt = s.catchUp(due.NextRunAt, due.Now)
		if last.Equal(due.NextRunAt) || due.Missed != MissedSkip {
			p.FireAt = last
		}
	}
	if p.NextRunAt.IsZero() {
		return p, fmt.Errorf("schedule %q has no fire time within five years after %s", due.Schedule,
			due.Now.UTC().Format(time.RFC3339))
	}
	return p, nil
}

// periodicNameRE is awa._require_periodic_name's rule.
var periodicNameRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,100}$`)

// periodicDeclarations checks Config.PeriodicJobs and returns them as the
// upserts the leader makes, recording every invalid field in chk.
func periodicDeclarations(jobs []*PeriodicJob, chk *configCheck) []PeriodicJobParams {
	out := make([]PeriodicJobParams, 0, len(jobs))
	seen := map[string]bool{}
	for i, j := range jobs {
		field := fmt.Sprintf("Config.PeriodicJobs[%d]", i)
		if j == nil {
			chk.reject(field, "nil", "be set")
			continue
		}
		switch {
		case !periodicNameRE.MatchString(j.Name):
			chk.reject(field+".Name", fmt.Sprintf("%q", j.Name), "be 1 to 100 characters of [A-Za-z0-9_.:-]")
		case seen[j.Name]:
			chk.reject(field+".Name", fmt.Sprintf("%q", j.Name), "be unique among Config.PeriodicJobs")
		}
		seen[j.Name] = true
		if _, err := parseSchedule(j.Schedule, j.TimeZone); err != nil {
			chk.reject(field+".Schedule", fmt.Sprintf("%q in %q", j.Schedule, j.TimeZone),
				fmt.Sprintf("be a 5-field cron spec or a descriptor in an IANA time zone (%v)", err))
		}
		if j.Missed != "" && j.Missed != MissedFireOnce && j.Missed != MissedSkip {
			chk.reject(field+".Missed", j.Missed, "be MissedFireOnce or MissedSkip")
		}
		p := PeriodicJobParams{Name: j.Name, Schedule: j.Schedule, TimeZone: j.TimeZone, Missed: j.Missed}
		if j.Opts != nil {
			if !j.Opts.RunAt.IsZero() {
				chk.reject(field+".Opts.RunAt", j.Opts.RunAt, "be zero (the fire time sets it)")
			}
			p.Opts = *j.Opts
		}
		ip, err := encodeArgs(j.Args)
		if err != nil {
			chk.reject(field+".Args", j.Args, fmt.Sprintf("encode as a JSON object (%v)", err))
			continue
		}
		p.Kind, p.Args = ip.Kind, ip.Args
		out = append(out, p)
	}
	return out
}

// periodicService is the leader's periodic service for one term of
// leadership: it stores the client's declarations (at its first tick; one
// the database refuses is tried again at the next, the others go on), then
// at every tick evaluates the due schedules and fires them.
type periodicService struct {
	d      *Driver
	db     DBTX
	batch  int
	log    *slog.Logger
	events *eventBus
	// toDeclare: the declarations not stored yet in this term.
	toDeclare []PeriodicJobParams
	parsed    map[[2]string]*schedule
}

func (p *periodicService) tick(ctx context.Context) error {
	var errs []error
	left := p.toDeclare[:0]
	for _, decl := range p.toDeclare {
		if _, err := p.d.UpsertPeriodicJob(ctx, p.db, decl); err != nil {
			if ctx.Err() != nil {
				return err
			}
			errs = append(errs, err)
			left = append(left, decl)
		}
	}
	p.toDeclare = left
	due, err := p.d.PeriodicJobsDue(ctx, p.db, min(p.batch, 10000))
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, row := range due {
		if err := p.evaluate(ctx, row); err != nil {
			if ctx.Err() != nil {
				return err
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// evaluate runs the fire step of one due schedule, or rejects it.
func (p *periodicService) evaluate(ctx context.Context, due PeriodicDue) error {
	key := [2]string{due.Schedule, due.TimeZone}
	s, ok := p.parsed[key]
	var err error
	if !ok {
		if s, err = parseSchedule(due.Schedule, due.TimeZone); err == nil {
			p.parsed[key] = s
		}
	}
	var step PeriodicFireParams
	if err == nil {
		step, err = periodicStep(s, due)
	}
	if err != nil {
		p.log.WarnContext(ctx, "awa: Rejected a periodic job's schedule", slog.String("periodic_job", due.Name),
			slog.String("error", err.Error()))
		_, rerr := p.d.RejectPeriodicSchedule(ctx, p.db, due.Name, due.Revision, err.Error())
		return rerr
	}
	f, err := p.d.FirePeriodicJob(ctx, p.db, step)
	if err != nil {
		return err
	}
	switch {
	case f.Outcome == PeriodicFired:
		attrs := []any{slog.String("periodic_job", f.Name), slog.Int64("job_id", f.JobID), slog.Time("fire_at", f.FireAt)}
		lvl := slog.LevelDebug
		if !f.MissedFrom.IsZero() {
			lvl = slog.LevelInfo
			attrs = append(attrs, slog.Time("missed_from", f.MissedFrom))
		}
		p.log.Log(ctx, lvl, "awa: Fired a periodic job", attrs...)
		p.events.emit(&Event{Kind: EventPeriodicFired, Periodic: &f})
	case f.Outcome == PeriodicScheduled && !step.Expected.IsZero():
		p.log.InfoContext(ctx, "awa: Skipped the missed fire times of a periodic job", slog.String("periodic_job", f.Name),
			slog.Time("missed_from", step.Expected), slog.Time("next_run_at", f.NextRunAt))
	}
	return nil
}
