package driver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestConfigInvalidFieldsAreRejected: NewClient rejects every field outside
// its documented range with ErrInvalidConfig and a message naming the field
// and the value, instead of changing it (ElectInterval above LeaderTTL/4,
// FetchBatchSize above 1024 and a short InstanceRetention were silently
// changed before).
func TestConfigInvalidFieldsAreRejected(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDB(t)
	ws := driver.NewWorkers()
	maint := func(m driver.MaintenanceConfig) driver.Config { return driver.Config{Maintenance: &m} }
	periodic := func(jobs ...*driver.PeriodicJob) driver.Config { return driver.Config{PeriodicJobs: jobs} }
	for _, tc := range []struct {
		cfg  driver.Config
		want string // field, rule and value, as the message gives them
	}{
		{driver.Config{Queues: map[string]driver.QueueConfig{"q": {MaxWorkers: 1}}},
			"Config.Workers must be set to work queues, got nil"},
		{driver.Config{Workers: ws, Queues: map[string]driver.QueueConfig{"q": {MaxWorkers: 0}}},
			`Config.Queues["q"].MaxWorkers must be at least 1, got 0`},
		{driver.Config{FetchBatchSize: 1025}, "Config.FetchBatchSize must be between 1 and 1024, got 1025"},
		{driver.Config{FetchBatchSize: -1}, "Config.FetchBatchSize must be between 1 and 1024, got -1"},
		{driver.Config{FetchPollInterval: -time.Second}, "Config.FetchPollInterval must not be negative, got -1s"},
		{driver.Config{JobTimeoutGrace: -time.Second}, "Config.JobTimeoutGrace must not be negative, got -1s"},
		{driver.Config{ListenWatchWindow: -time.Second}, "Config.ListenWatchWindow must not be negative, got -1s"},
		{driver.Config{FetchPollInterval: time.Second, ListenWatchWindow: 2 * time.Second},
			"Config.ListenWatchWindow must be at least 3 x FetchPollInterval (3s), got 2s"},
		{driver.Config{ListenDSN: "postgres://u@h:notaport/db"},
			"Config.ListenDSN must be a valid connection string"},
		{driver.Config{RescueStuckAfter: -time.Second}, "Config.RescueStuckAfter must be positive, got -1s"},
		{driver.Config{JobTimeout: time.Hour, RescueStuckAfter: time.Hour},
			"Config.RescueStuckAfter must exceed JobTimeout (1h0m0s), got 1h0m0s"},
		{driver.Config{CompleterBatchSize: -5}, "Config.CompleterBatchSize must be positive, got -5"},
		{driver.Config{CompleterFlushInterval: -time.Millisecond}, "Config.CompleterFlushInterval must not be negative, got -1ms"},
		{driver.Config{CompleterRetryInterval: -time.Second}, "Config.CompleterRetryInterval must not be negative, got -1s"},
		{driver.Config{HeartbeatInterval: -time.Second}, "Config.HeartbeatInterval must not be negative, got -1s"},
		{driver.Config{CallbackPollInterval: -time.Second}, "Config.CallbackPollInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{LeaderTTL: -time.Second}), "Config.Maintenance.LeaderTTL must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{LeaderTTL: 4 * time.Second, ElectInterval: 2 * time.Second}),
			"Config.Maintenance.ElectInterval must be at most LeaderTTL/4 (1s), got 2s"},
		{maint(driver.MaintenanceConfig{ElectInterval: -time.Second}), "Config.Maintenance.ElectInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{ServiceTimeout: -time.Second}), "Config.Maintenance.ServiceTimeout must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{PromoteInterval: -time.Second}), "Config.Maintenance.PromoteInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{RescueInterval: -time.Second}), "Config.Maintenance.RescueInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{RescueStaleAfter: -time.Second}), "Config.Maintenance.RescueStaleAfter must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{DeadlineInterval: -time.Second}), "Config.Maintenance.DeadlineInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{CallbackInterval: -time.Second}), "Config.Maintenance.CallbackInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{QueueRingInterval: -time.Second}), "Config.Maintenance.QueueRingInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{ClaimRingInterval: -time.Second}), "Config.Maintenance.ClaimRingInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{LeaseRingInterval: -time.Second}), "Config.Maintenance.LeaseRingInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{CursorRingInterval: -time.Second}), "Config.Maintenance.CursorRingInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{PruneLockTimeout: -time.Second}), "Config.Maintenance.PruneLockTimeout must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{PruneLockTimeout: time.Microsecond}), "Config.Maintenance.PruneLockTimeout must be at least 1ms, got 1µs"},
		{maint(driver.MaintenanceConfig{DLQCleanupInterval: -time.Second}), "Config.Maintenance.DLQCleanupInterval must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{InstanceRetention: -time.Second}), "Config.Maintenance.InstanceRetention must not be negative, got -1s"},
		{maint(driver.MaintenanceConfig{InstanceRetention: 30 * time.Second}),
			"Config.Maintenance.InstanceRetention must be at least a minute and 2 x RescueStaleAfter (3m0s), got 30s"},
		{maint(driver.MaintenanceConfig{RescueStaleAfter: 10 * time.Minute, InstanceRetention: 15 * time.Minute}),
			"Config.Maintenance.InstanceRetention must be at least a minute and 2 x RescueStaleAfter (20m0s), got 15m0s"},
		{maint(driver.MaintenanceConfig{BatchSize: -1}), "Config.Maintenance.BatchSize must be positive, got -1"},
		{maint(driver.MaintenanceConfig{PeriodicInterval: -time.Second}), "Config.Maintenance.PeriodicInterval must not be negative, got -1s"},
		{periodic(&driver.PeriodicJob{Name: "two words", Schedule: "@hourly", Args: periodicArgs{}}),
			`Config.PeriodicJobs[0].Name must be 1 to 100 characters of [A-Za-z0-9_.:-], got "two words"`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly", Args: periodicArgs{}},
			&driver.PeriodicJob{Name: "p", Schedule: "@daily", Args: periodicArgs{}}),
			`Config.PeriodicJobs[1].Name must be unique among Config.PeriodicJobs, got "p"`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "61 * * * *", Args: periodicArgs{}}),
			`Config.PeriodicJobs[0].Schedule must be a 5-field cron spec or a descriptor in an IANA time zone (schedule "61 * * * *": end of range (61) above maximum (59): 61), got "61 * * * *" in ""`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "0 * * * * *", Args: periodicArgs{}}),
			`Config.PeriodicJobs[0].Schedule must be a 5-field cron spec or a descriptor in an IANA time zone (schedule "0 * * * * *": expected exactly 5 fields, found 6: [0 * * * * *]), got "0 * * * * *" in ""`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "CRON_TZ=UTC", Args: periodicArgs{}}),
			`Config.PeriodicJobs[0].Schedule must be a 5-field cron spec or a descriptor in an IANA time zone (schedule "CRON_TZ=UTC" names a time zone: pass it as the time zone), got "CRON_TZ=UTC" in ""`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly", TimeZone: "Mars/Olympus", Args: periodicArgs{}}),
			`Config.PeriodicJobs[0].Schedule must be a 5-field cron spec or a descriptor in an IANA time zone (time zone "Mars/Olympus": unknown time zone Mars/Olympus), got "@hourly" in "Mars/Olympus"`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly", TimeZone: "Local", Args: periodicArgs{}}),
			`(time zone "Local" is each process's own: name an IANA zone, so every leader reads the schedule alike)`},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly", Args: periodicArgs{}, Missed: "catch_up"}),
			"Config.PeriodicJobs[0].Missed must be MissedFireOnce or MissedSkip, got catch_up"},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly", Args: periodicArgs{},
			Opts: &driver.InsertOpts{RunAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}}),
			"Config.PeriodicJobs[0].Opts.RunAt must be zero (the fire time sets it), got 2030-01-01 00:00:00 +0000 UTC"},
		{periodic(&driver.PeriodicJob{Name: "p", Schedule: "@hourly"}),
			"Config.PeriodicJobs[0].Args must encode as a JSON object (awa: nil job args), got <nil>"},
		{periodic(nil), "Config.PeriodicJobs[0] must be set, got nil"},
		{driver.Config{DisableMaintenance: true, PeriodicJobs: []*driver.PeriodicJob{{Name: "p", Schedule: "@hourly", Args: periodicArgs{}}}},
			"Config.PeriodicJobs must be empty with DisableMaintenance (only a maintenance leader declares and fires them), got 1 jobs"},
	} {
		c, err := driver.NewClient(pool, &tc.cfg)
		if c != nil || !errors.Is(err, driver.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewClient = %v, %v; want ErrInvalidConfig containing %q", c, err, tc.want)
		}
	}

	// Every invalid field is named, not only the first.
	_, err := driver.NewClient(pool, &driver.Config{FetchBatchSize: 2000, HeartbeatInterval: -time.Second})
	if !errors.Is(err, driver.ErrInvalidConfig) || !strings.Contains(err.Error(), "FetchBatchSize") ||
		!strings.Contains(err.Error(), "HeartbeatInterval") {
		t.Errorf("two invalid fields: %v; want ErrInvalidConfig naming both", err)
	}
}

// TestConfigValidConfigsStart: zero fields take defaults, including those
// derived from another field (ElectInterval from a short LeaderTTL,
// InstanceRetention from a long RescueStaleAfter), and the documented
// special values are accepted; each such client starts and stops.
func TestConfigValidConfigsStart(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDB(t)
	ws := driver.NewWorkers()
	for _, cfg := range []*driver.Config{
		nil,
		{},
		{Workers: ws, Queues: map[string]driver.QueueConfig{"q": {MaxWorkers: 1}}, FetchBatchSize: 1024},
		{JobTimeout: -1},
		{FetchPollInterval: 100 * time.Millisecond, ListenWatchWindow: 300 * time.Millisecond},
		{FetchPollInterval: time.Hour},                                        // ListenWatchWindow defaults to 3h
		{Maintenance: &driver.MaintenanceConfig{LeaderTTL: 2 * time.Second}},  // ElectInterval defaults to 500ms
		{Maintenance: &driver.MaintenanceConfig{RescueStaleAfter: time.Hour}}, // InstanceRetention defaults to 2h
		{Maintenance: &driver.MaintenanceConfig{KeepSealedQueueSlots: -1, DLQRetention: -1, PruneLockTimeout: time.Millisecond}},
		{Maintenance: driver.DefaultMaintenance()},
		{PeriodicJobs: []*driver.PeriodicJob{ // the zone, policy and opts defaults; a descriptor and a spec
			{Name: "a", Schedule: "@every 90s", Args: periodicArgs{}},
			{Name: "b.c:d-e_f", Schedule: "30 2 * * SUN", TimeZone: "Europe/Paris", Args: periodicArgs{},
				Opts: &driver.InsertOpts{Queue: "q"}, Missed: driver.MissedSkip}}},
	} {
		c, err := driver.NewClient(pool, cfg)
		if err != nil {
			t.Fatalf("NewClient(%+v) = %v, want no error", cfg, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := c.Start(ctx); err != nil {
			cancel()
			t.Fatalf("Start(%+v) = %v", cfg, err)
		}
		if err := c.Stop(ctx); err != nil {
			t.Errorf("Stop(%+v) = %v", cfg, err)
		}
		cancel()
	}
}
