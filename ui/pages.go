package ui

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/awa-queue/awa/driver"
)

// queueRow is one queue on the queues page.
type queueRow struct {
	driver.QueueCount
	Paused   bool
	PausedAt time.Time
	Rate     queueRate
}

func (h *Handler) queuesPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	counts, err := h.d.QueueCounts(ctx, h.db, "")
	if err != nil {
		h.fail(w, r, "queues", err)
		return
	}
	h.rates.add(time.Now(), counts)
	paused, err := h.d.PausedQueues(ctx, h.db)
	if err != nil {
		h.fail(w, r, "queues", err)
		return
	}
	rows := make([]queueRow, 0, len(counts)+len(paused))
	for _, c := range counts {
		at, p := paused[c.Queue]
		rows = append(rows, queueRow{QueueCount: c, Paused: p, PausedAt: at, Rate: h.rates.rate(c.Queue)})
		delete(paused, c.Queue)
	}
	// A queue may be paused before it has jobs.
	for q, at := range paused {
		rows = append(rows, queueRow{QueueCount: driver.QueueCount{Queue: q}, Paused: true, PausedAt: at})
	}
	slices.SortFunc(rows, func(a, b queueRow) int { return strings.Compare(a.Queue, b.Queue) })
	refresh := 0
	if s := r.URL.Query().Get("refresh"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 || n > 300 {
			h.fail(w, r, "queues", badRequestf("refresh must be 2 to 300 seconds, got %q", s))
			return
		}
		refresh = n
	}
	// The note names the link's queue only when the page lists it: a link
	// from elsewhere must not make the page show text of its choosing.
	note := flash(r)
	if q := r.URL.Query().Get("queue"); !slices.ContainsFunc(rows, func(x queueRow) bool { return x.Queue == q }) {
		note = flashWithout(r)
	}
	h.render(w, r, http.StatusOK, "queues", page{Title: "Queues", Nav: "queues", Flash: note, Refresh: refresh,
		Data: rows})
}

// listData is the jobs page and the DLQ page.
type listData struct {
	DLQ                     bool
	State, Queue, Kind, Tag string
	States                  []driver.JobState
	Jobs                    []driver.JobListing
	// Newer and Older are the links to the previous and next pages ("" when
	// there is none), First to the first page.
	Newer, Older, First string
}

// listStates are the states the jobs page filters by, in a job's order.
var listStates = []driver.JobState{driver.StateScheduled, driver.StateAvailable, driver.StateRunning,
	driver.StateWaitingExternal, driver.StateRetryable, driver.StateCompleted, driver.StateCancelled,
	driver.StateFailed}

// maxTrail bounds the cursors a listing link carries for its Newer link.
const maxTrail = 20

func (h *Handler) jobsPage(w http.ResponseWriter, r *http.Request) { h.listPage(w, r, false) }

func (h *Handler) dlqPage(w http.ResponseWriter, r *http.Request) { h.listPage(w, r, true) }

// listPage is a page of awa.list_jobs (or of the DLQ), keyset-paged: the
// link to the next page carries its cursor (after, the last id shown) and
// the cursors of the pages before it (trail), so the previous page is one
// link away too.
func (h *Handler) listPage(w http.ResponseWriter, r *http.Request, dlq bool) {
	nav, title, route := "jobs", "Jobs", "/jobs"
	if dlq {
		nav, title, route = "dlq", "Dead letter queue", "/dlq"
	}
	q := r.URL.Query()
	d := listData{DLQ: dlq, State: q.Get("state"), Queue: strings.TrimSpace(q.Get("queue")),
		Kind: strings.TrimSpace(q.Get("kind")), Tag: strings.TrimSpace(q.Get("tag")), States: listStates}
	p := driver.ListJobsParams{Queue: d.Queue, Kind: d.Kind, Tag: d.Tag, Limit: h.cfg.PageSize}
	if d.State != "" && !dlq {
		if !slices.Contains(listStates, driver.JobState(d.State)) {
			h.fail(w, r, nav, badRequestf("unknown state %q", d.State))
			return
		}
		p.States = []driver.JobState{driver.JobState(d.State)}
	}
	var err error
	if p.After, err = cursorParam(q.Get("after")); err != nil {
		h.fail(w, r, nav, err)
		return
	}
	var trail []int64
	for _, s := range strings.Split(q.Get("trail"), ",") {
		if s == "" {
			continue
		}
		c, err := cursorParam(s)
		if err != nil {
			h.fail(w, r, nav, err)
			return
		}
		trail = append(trail, c)
	}
	var jobs []driver.JobListing
	var next int64
	if dlq {
		jobs, next, err = h.d.ListDLQJobs(r.Context(), h.db, driver.ListDLQJobsParams{Queue: p.Queue, Kind: p.Kind,
			Tag: p.Tag, After: p.After, Limit: p.Limit})
	} else {
		jobs, next, err = h.d.ListJobs(r.Context(), h.db, p)
	}
	if err != nil {
		h.render(w, r, statusOf(err), "list", page{Title: title, Nav: nav, Error: err.Error(), Data: d})
		return
	}
	d.Jobs = jobs
	filter := url.Values{"state": {d.State}, "queue": {d.Queue}, "kind": {d.Kind}, "tag": {d.Tag}}
	if dlq {
		filter.Del("state")
	}
	at := func(after int64, trail []int64) string {
		v := url.Values{}
		for k, s := range filter {
			v[k] = s
		}
		if after != 0 {
			v.Set("after", strconv.FormatInt(after, 10))
		}
		parts := make([]string, len(trail))
		for i, c := range trail {
			parts[i] = strconv.FormatInt(c, 10)
		}
		v.Set("trail", strings.Join(parts, ","))
		return h.link(route, v)
	}
	d.First = at(0, nil)
	if next != 0 {
		t := append(slices.Clone(trail), p.After)
		if len(t) > maxTrail {
			t = t[len(t)-maxTrail:]
		}
		d.Older = at(next, t)
	}
	switch {
	case len(trail) > 0:
		d.Newer = at(trail[len(trail)-1], trail[:len(trail)-1])
	case p.After != 0:
		d.Newer = d.First
	}
	h.render(w, r, http.StatusOK, "list", page{Title: title, Nav: nav, Flash: flash(r), Data: d})
}

// cursorParam parses a listing cursor: "" or "0" is the first page.
func cursorParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	c, err := strconv.ParseInt(s, 10, 64)
	if err != nil || c < 0 {
		return 0, badRequestf("a page cursor must be a job id, got %q", s)
	}
	return c, nil
}

// jobError is one entry of a job's errors.
type jobError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
}

// jobData is the job page.
type jobData struct {
	Job driver.JobListing
	// Errors are the job's errors, oldest first; ErrorsRaw holds them as
	// JSON when they do not have the usual shape.
	Errors    []jobError
	ErrorsRaw string
	// What the job's state allows.
	CanRetry, CanCancel bool
}

func (h *Handler) jobPage(w http.ResponseWriter, r *http.Request) {
	id, err := jobIDParam(r)
	if err != nil {
		h.fail(w, r, "jobs", err)
		return
	}
	j, err := h.d.GetJob(r.Context(), h.db, id)
	if err != nil {
		h.fail(w, r, "jobs", err)
		return
	}
	d := jobData{Job: j}
	if len(j.Errors) > 0 && json.Unmarshal(j.Errors, &d.Errors) != nil {
		d.Errors, d.ErrorsRaw = nil, prettyJSON(j.Errors)
	}
	switch j.State {
	case driver.StateScheduled, driver.StateRetryable:
		d.CanRetry, d.CanCancel = true, true
	case driver.StateAvailable, driver.StateRunning, driver.StateWaitingExternal:
		d.CanCancel = true
	case driver.StateFailed, driver.StateCancelled:
		d.CanRetry = !j.DLQ // a DLQ job is retried from the DLQ's action
	}
	h.render(w, r, http.StatusOK, "job", page{Title: "Job " + strconv.FormatInt(id, 10), Nav: "jobs", Flash: flash(r),
		Data: d})
}

// jobIDParam is the {id} of the path.
func jobIDParam(r *http.Request) (int64, error) {
	s := r.PathValue("id")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequestf("a job id is a positive integer, got %q", s)
	}
	return id, nil
}

// ringSummary is one ring on the storage page: its slots added up.
type ringSummary struct {
	Ring       string
	Slots      int
	Rows       int64
	RowsCapped bool
	Bytes      int64
	// Statuses counts its slots by status, in the order first seen.
	Statuses []statusCount
}

type statusCount struct {
	Status string
	N      int
}

// storageData is the storage page.
type storageData struct {
	Rings []ringSummary
	Slots []driver.StorageSlot
}

func (h *Handler) storagePage(w http.ResponseWriter, r *http.Request) {
	slots, err := h.d.StorageStatus(r.Context(), h.db, 0)
	if err != nil {
		h.fail(w, r, "storage", err)
		return
	}
	d := storageData{Slots: slots}
	for _, s := range slots {
		if len(d.Rings) == 0 || d.Rings[len(d.Rings)-1].Ring != s.Ring {
			d.Rings = append(d.Rings, ringSummary{Ring: s.Ring})
		}
		g := &d.Rings[len(d.Rings)-1]
		g.Slots++
		g.Rows += s.Rows
		g.RowsCapped = g.RowsCapped || s.RowsCapped
		g.Bytes += s.Bytes
		i := slices.IndexFunc(g.Statuses, func(c statusCount) bool { return c.Status == s.Status })
		if i < 0 {
			g.Statuses = append(g.Statuses, statusCount{Status: s.Status})
			i = len(g.Statuses) - 1
		}
		g.Statuses[i].N++
	}
	h.render(w, r, http.StatusOK, "storage", page{Title: "Storage", Nav: "storage", Data: d})
}

func (h *Handler) periodicPage(w http.ResponseWriter, r *http.Request) {
	jobs, err := h.d.PeriodicJobs(r.Context(), h.db)
	if err != nil {
		h.fail(w, r, "periodic", err)
		return
	}
	h.render(w, r, http.StatusOK, "periodic", page{Title: "Periodic jobs", Nav: "periodic", Data: jobs})
}

// flash is what the action that redirected here did, from its fixed codes
// (the query names a code, never the text).
func flash(r *http.Request) string {
	q := r.URL.Query()
	switch q.Get("done") {
	case "retried":
		return "Retried: the job runs again."
	case "cancelled":
		return "Cancelled."
	case "stale":
		return "Not cancelled: its attempt ended first."
	case "purged":
		n, _ := strconv.Atoi(q.Get("n"))
		if n == 1 {
			return "Purged 1 job from the DLQ."
		}
		return "Purged " + strconv.Itoa(n) + " jobs from the DLQ."
	case "paused":
		return "Queue " + q.Get("queue") + " paused: its jobs are not claimed until it is resumed."
	case "resumed":
		return "Queue " + q.Get("queue") + " resumed."
	}
	return ""
}

// flashWithout is flash without the queue's name, for a queue the page does
// not list.
func flashWithout(r *http.Request) string {
	switch r.URL.Query().Get("done") {
	case "paused":
		return "Queue paused: its jobs are not claimed until it is resumed."
	case "resumed":
		return "Queue resumed."
	}
	return flash(r)
}
