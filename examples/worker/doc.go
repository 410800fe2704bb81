// Package worker is a runnable example, not a library: a service's own main
// that runs workers for its own job kinds. The prebuilt `awa work` runs the
// demo's kinds only, because a binary cannot load Go handlers at run time.
// See Example in example_test.go; `go test ./examples/worker` runs it
// against the database of AWA_TEST_DSN.
package worker
