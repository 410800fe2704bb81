package ui_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/headless"
	"github.com/awa-queue/awa/ui"
)

// newBrowser starts a headless Chromium for the test and returns its tab's
// context. A missing Chromium fails the test: the browser test is part of
// the suite (make tools installs Debian's chromium).
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	path, err := headless.ExecPath()
	if err != nil {
		t.Fatal(err)
	}
	tab, cancel, err := headless.Start(ctx, path, 1280, 900)
	if err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(cancel)
	return tab
}

// run runs browser actions, failing the test with what it was doing.
func run(t *testing.T, bctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %s: %v", what, err)
	}
}

// follow opens the link sel of the current page by its href, with a
// navigation that waits for the new page to load, then waits for wait to be
// visible: a click would race the old page, whose elements a wait can still
// find while the new one loads (the test timed out so on a loaded machine).
func follow(t *testing.T, bctx context.Context, what, sel, wait string) {
	t.Helper()
	var href string
	run(t, bctx, what+": read the link", into(chromedp.Evaluate[string](
		`document.querySelector(`+strconv.Quote(sel)+`).href`), &href))
	run(t, bctx, what, chromedp.Navigate(href), chromedp.WaitVisible(chromedp.CSS(wait)))
}

// into runs a and stores its value in dst.
func into[T any](a chromedp.Action[T], dst *T) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		v, err := a(ctx, tg)
		*dst = v
		return chromedp.Void{}, err
	}
}

// listedJobs reads the job ids of a listing page, in page order.
func listedJobs(t *testing.T, bctx context.Context) []int64 {
	t.Helper()
	var ids []string
	run(t, bctx, "read the listed jobs", into(chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('#jobs tr[data-job]')).map(e => e.dataset.job)`), &ids))
	out := make([]int64, len(ids))
	for i, s := range ids {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = n
	}
	return out
}

// TestBrowserWalksThePagesAndActs drives a headless Chromium through the UI
// of a real database: it loads every page, filters the jobs and pages
// through them, opens a job, retries a DLQ job and pauses a queue through
// their confirmation pages, and checks each result in the database.
func TestBrowserWalksThePagesAndActs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 7)
	srv := f.serve(t, &ui.Config{Prefix: "/awa", PageSize: 3})
	base := srv.URL + "/awa"
	b := newBrowser(t, f.ctx)
	var text string

	// Queues: every queue with its depth, and its DLQ count.
	run(t, b, "load the queues page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#queues`)),
		into(chromedp.Text(chromedp.CSS(`#queues tbody`)), &text))
	for _, q := range []string{"mail", "billing", "reports"} {
		if !strings.Contains(text, q) {
			t.Fatalf("the queues page does not show %s: %q", q, text)
		}
	}
	var reportsRow, mailDLQ string
	run(t, b, "read the queue rows", into(chromedp.Text(chromedp.CSS(`tr[data-queue="reports"]`)), &reportsRow),
		into(chromedp.Text(chromedp.CSS(`tr[data-queue="mail"] td:nth-child(11)`)), &mailDLQ))
	if !strings.Contains(reportsRow, "active") || strings.TrimSpace(mailDLQ) != "1" {
		t.Fatalf("queue rows: reports %q, mail's DLQ %q; want reports active and mail's DLQ 1", reportsRow, mailDLQ)
	}

	// Jobs: filter by queue and state through the form, then page by cursor.
	run(t, b, "filter the jobs", chromedp.Navigate(base+"/jobs"), chromedp.WaitVisible(chromedp.CSS(`#filters`)),
		chromedp.SetValue(chromedp.CSS(`#f-state`), "available"),
		chromedp.SendKeys(chromedp.CSS(`#f-queue`), "reports"),
		chromedp.Click(chromedp.CSS(`#f-apply`)),
		// The filtered page renders its queue into the field's attribute
		// (typing changed only the old page's property): a wait on it cannot
		// match the page the click left.
		chromedp.WaitVisible(chromedp.CSS(`#f-queue[value="reports"]`)), chromedp.WaitVisible(chromedp.CSS(`#older`)))
	want := slices.Clone(f.reports)
	slices.Reverse(want) // newest first
	var pages [][]int64
	pages = append(pages, listedJobs(t, b))
	follow(t, b, "go to the second page", `#older`, `#newer`)
	pages = append(pages, listedJobs(t, b))
	follow(t, b, "go to the last page", `#older`, `#newer`)
	var last bool
	run(t, b, "look for a next page", into(chromedp.Evaluate[bool](`document.querySelector('#older') === null`), &last))
	if !last {
		t.Fatal("the third page of 3 per page offers an older page")
	}
	pages = append(pages, listedJobs(t, b))
	if got := slices.Concat(pages...); !slices.Equal(got, want) {
		t.Fatalf("pages of reports' available jobs: %v, want %v in pages of 3", pages, want)
	}
	follow(t, b, "go back a page", `#newer`, `#older`)
	if got := listedJobs(t, b); !slices.Equal(got, pages[1]) {
		t.Fatalf("back from the last page: %v, want %v", got, pages[1])
	}
	var location string
	run(t, b, "read the URL", into(chromedp.Location(), &location))
	if !strings.Contains(location, "queue=reports") || !strings.Contains(location, "state=available") {
		t.Fatalf("the pages lost the filter: %s", location)
	}

	// A job: open it from the listing.
	newest := strconv.FormatInt(want[0], 10)
	follow(t, b, "back to the first page", `#first`, `tr[data-job="`+newest+`"]`)
	follow(t, b, "open a job", `tr[data-job="`+newest+`"] a`, `#job`)
	var state, args string
	run(t, b, "read the job", into(chromedp.Text(chromedp.CSS(`#job-state`)), &state),
		into(chromedp.Text(chromedp.CSS(`#args`)), &args))
	if state != "available" || !strings.Contains(args, `"n": 6`) {
		t.Fatalf("job %s shows state %q, args %q", newest, state, args)
	}

	// DLQ: retry its job through the confirmation.
	dlq := strconv.FormatInt(f.dlq, 10)
	run(t, b, "retry the DLQ job", chromedp.Navigate(base+"/dlq"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-job="`+dlq+`"]`)),
		chromedp.Click(chromedp.CSS(`tr[data-job="`+dlq+`"] a[href$="/retry"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#confirm`)))
	if j := f.job(t, f.dlq); !j.DLQ {
		t.Fatalf("the confirmation page alone retried the job: %+v", j)
	}
	run(t, b, "confirm the retry", chromedp.Click(chromedp.CSS(`#confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#flash`)), into(chromedp.Text(chromedp.CSS(`#job-state`)), &state))
	if j := f.job(t, f.dlq); j.DLQ || j.State != driver.StateAvailable || j.Attempt != 0 {
		t.Fatalf("after the DLQ retry the job is %s (dlq %v) at attempt %d, want available at 0 out of the DLQ",
			j.State, j.DLQ, j.Attempt)
	}
	if state != "available" {
		t.Fatalf("the page after the DLQ retry shows %q", state)
	}

	// Pause: the reports queue, through the confirmation.
	run(t, b, "pause reports", chromedp.Navigate(base+"/queues"),
		chromedp.Click(chromedp.CSS(`tr[data-queue="reports"] a[href*="/queues/pause"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#confirm`)))
	if f.paused(t, "reports") {
		t.Fatal("the confirmation page alone paused the queue")
	}
	run(t, b, "confirm the pause", chromedp.Click(chromedp.CSS(`#confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#flash`)),
		into(chromedp.Text(chromedp.CSS(`tr[data-queue="reports"]`)), &reportsRow))
	if !f.paused(t, "reports") || !strings.Contains(reportsRow, "paused") || !strings.Contains(reportsRow, "Resume") {
		t.Fatalf("after the pause: paused in the database %v, row %q", f.paused(t, "reports"), reportsRow)
	}

	// Storage and periodic schedules load.
	var slots int
	run(t, b, "load the storage page", chromedp.Navigate(base+"/storage"),
		chromedp.WaitVisible(chromedp.CSS(`#storage`)),
		into(chromedp.Evaluate[int](`document.querySelectorAll('#storage tr[data-ring]').length`), &slots))
	if slots == 0 {
		t.Fatal("the storage page lists no ring slot")
	}
	run(t, b, "load the periodic page", chromedp.Navigate(base+"/periodic"),
		chromedp.WaitVisible(chromedp.CSS(`#periodic`)), into(chromedp.Text(chromedp.CSS(`#periodic`)), &text))
	if !strings.Contains(text, "No periodic job") {
		t.Fatalf("the periodic page: %q", text)
	}
}
