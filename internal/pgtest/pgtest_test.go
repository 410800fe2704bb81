package pgtest

import (
	"context"
	"testing"
)

func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u@h:5432/postgres?sslmode=disable", "postgres://u@h:5432/x_1?sslmode=disable"},
		{"postgresql://u@h", "postgresql://u@h/x_1"},
		{"host=h user=u dbname=postgres", "host=h user=u dbname=postgres dbname=x_1"},
	} {
		if got := WithDatabase(c.in, "x_1"); got != c.want {
			t.Errorf("WithDatabase(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestNewDB checks that a clone holds the migrated schema and is private.
func TestNewDB(t *testing.T) {
	ctx := context.Background()
	a, b := NewDB(t), NewDB(t)
	var nameA, nameB string
	var rings int
	if err := a.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM awa.ring_config)").
		Scan(&nameA, &rings); err != nil {
		t.Fatalf("query clone: %v", err)
	}
	if rings != 4 {
		t.Fatalf("awa.ring_config has %d rows in a fresh clone, want 4 (queue, claim, lease, cursor)", rings)
	}
	if err := b.QueryRow(ctx, "SELECT current_database()").Scan(&nameB); err != nil {
		t.Fatal(err)
	}
	if nameA == nameB {
		t.Fatalf("two NewDB calls share database %s", nameA)
	}
	if _, err := a.Exec(ctx, "SELECT awa.insert_job('k')"); err != nil {
		t.Fatalf("insert_job in clone: %v", err)
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM awa.jobs").Scan(&n); err != nil || n != 0 {
		t.Fatalf("other clone sees %d jobs (err %v), want 0", n, err)
	}
}
