// Command goosemigrate applies the embedded awa migrations (package db) with
// goose's Provider API. It exists for `make verify`, which compares the catalog
// it produces with that of scripts/apply-sql.sh.
//
//	go run ./internal/tools/goosemigrate -dsn DSN [-dir DIR] [-schema S] up | up-to N | down-to N | status
//
// -dsn defaults to $AWA_TEST_DSN, then $DATABASE_URL; -dir reads the migrations
// from a directory instead of the embedded ones (the catalog check's own tests);
// -schema installs into another schema than awa (db.SchemaProvider).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/pressly/goose/v3"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/internal/sqlschema"
)

func main() {
	dsn := flag.String("dsn", firstNonEmpty(os.Getenv("AWA_TEST_DSN"), os.Getenv("DATABASE_URL")), "PostgreSQL connection string")
	verbose := flag.Bool("v", false, "log each migration")
	dir := flag.String("dir", "", "migrations directory (default: the embedded db/migrations)")
	schema := flag.String("schema", db.DefaultSchema, "schema to install into")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: goosemigrate [-dsn DSN] [-dir DIR] [-v] up | up-to VERSION | down-to VERSION | status")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*dsn, *dir, *schema, *verbose, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "goosemigrate:", err)
		os.Exit(1)
	}
}

func run(dsn, dir, schema string, verbose bool, args []string) error {
	if dsn == "" {
		return fmt.Errorf("no DSN: pass -dsn or set AWA_TEST_DSN")
	}
	if len(args) == 0 {
		flag.Usage()
		return fmt.Errorf("missing command")
	}
	sqlDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	opts := []goose.ProviderOption{goose.WithVerbose(verbose)}
	var p *goose.Provider
	if dir != "" {
		var fsys fs.FS
		if fsys, err = sqlschema.FS(os.DirFS(dir), schema); err != nil {
			return err
		}
		p, err = goose.NewProvider(goose.DialectPostgres, sqlDB, fsys, append(opts, goose.WithTableName(db.SchemaVersionTable(schema)))...)
	} else {
		p, err = db.SchemaProvider(sqlDB, schema, opts...)
	}
	if err != nil {
		return err
	}
	ctx := context.Background()
	switch {
	case args[0] == "up" && len(args) == 1:
		_, err = p.Up(ctx)
	case args[0] == "up-to" && len(args) == 2:
		var v int64
		if v, err = strconv.ParseInt(args[1], 10, 64); err == nil {
			_, err = p.UpTo(ctx, v)
		}
	case args[0] == "down-to" && len(args) == 2:
		var v int64
		if v, err = strconv.ParseInt(args[1], 10, 64); err == nil {
			_, err = p.DownTo(ctx, v)
		}
	case args[0] == "status" && len(args) == 1:
		var st []*goose.MigrationStatus
		if st, err = p.Status(ctx); err == nil {
			for _, s := range st {
				fmt.Printf("%-8s %d %s\n", s.State, s.Source.Version, s.Source.Path)
			}
		}
	default:
		flag.Usage()
		return fmt.Errorf("unknown command %q", args)
	}
	return err
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
