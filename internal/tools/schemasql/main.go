// Command schemasql writes SQL from stdin to stdout rewritten for an install
// in another schema (internal/sqlschema): scripts/apply-sql.sh applies sql/
// through it for the catalog check of a schema other than awa.
//
//	go run ./internal/tools/schemasql -schema NAME < in.sql > out.sql
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/awa-queue/awa/internal/sqlschema"
)

func main() {
	schema := flag.String("schema", sqlschema.Default, "schema to rewrite for")
	flag.Parse()
	in, err := io.ReadAll(os.Stdin)
	if err == nil {
		var out string
		if out, err = sqlschema.Rewrite(string(in), *schema); err == nil {
			_, err = io.WriteString(os.Stdout, out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemasql:", err)
		os.Exit(1)
	}
}
