package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/awa-queue/awa/driver"
)

// An action changes something: GET on its path renders the confirmation
// page, whose form POSTs to the same path with the CSRF token.
type action struct {
	path string
	nav  string
	// queue: the action's target is a queue (the query or form field
	// "queue"), else a job (the path's {id}); dlq: a job the DLQ holds.
	queue, dlq bool
	// title and question are the confirmation page's heading and text.
	title, question string
	button          string
	// run acts and returns where to send the browser.
	run func(ctx context.Context, t target) (string, error)
}

// target is what an action acts on.
type target struct {
	JobID int64
	Queue string
}

// errNotInDLQ: a DLQ action on a job the DLQ does not hold.
var errNotInDLQ = errors.New("the job is not in the DLQ")

// cancelReason is the reason recorded for a job cancelled from the UI.
const cancelReason = "cancelled from the admin UI"

func (h *Handler) actions() []action {
	jobLink := func(id int64, done string) string {
		return h.link("/jobs/"+strconv.FormatInt(id, 10), url.Values{"done": {done}})
	}
	return []action{{
		path: "/jobs/{id}/retry", nav: "jobs", title: "Retry job", button: "Retry",
		question: "Run this job again now? A scheduled or retryable job keeps its attempts; a failed or cancelled one starts over from attempt 0.",
		run: func(ctx context.Context, t target) (string, error) {
			_, err := h.d.RetryJob(ctx, h.db, t.JobID, time.Time{})
			return jobLink(t.JobID, "retried"), err
		},
	}, {
		path: "/jobs/{id}/cancel", nav: "jobs", title: "Cancel job", button: "Cancel job",
		question: "Cancel this job? A running attempt's late result is then dropped.",
		run: func(ctx context.Context, t target) (string, error) {
			res, err := h.d.CancelJob(ctx, h.db, t.JobID, cancelReason)
			if err != nil {
				return "", err
			}
			if res.Outcome == driver.Stale {
				return jobLink(t.JobID, "stale"), nil
			}
			return jobLink(t.JobID, "cancelled"), nil
		},
	}, {
		path: "/dlq/{id}/retry", nav: "dlq", dlq: true, title: "Retry DLQ job", button: "Retry",
		question: "Take this job out of the DLQ and run it again now, from attempt 0?",
		run: func(ctx context.Context, t target) (string, error) {
			_, err := h.d.RetryDLQJob(ctx, h.db, t.JobID, time.Time{})
			return jobLink(t.JobID, "retried"), err
		},
	}, {
		path: "/dlq/{id}/purge", nav: "dlq", dlq: true, title: "Purge DLQ job", button: "Purge",
		question: "Delete this job from the DLQ for good? It cannot be retried afterwards.",
		run: func(ctx context.Context, t target) (string, error) {
			ids, err := h.d.PurgeDLQ(ctx, h.db, driver.PurgeDLQFilter{JobIDs: []int64{t.JobID}, Max: 1})
			if err == nil && len(ids) == 0 {
				err = fmt.Errorf("purge job %d: %w", t.JobID, errNotInDLQ)
			}
			return h.link("/dlq", url.Values{"done": {"purged"}, "n": {strconv.Itoa(len(ids))}}), err
		},
	}, {
		path: "/dlq/purge", nav: "dlq", queue: true, title: "Purge a queue's DLQ", button: "Purge",
		question: "Delete every DLQ job of this queue for good (up to 10,000 at a time)?",
		run: func(ctx context.Context, t target) (string, error) {
			ids, err := h.d.PurgeDLQ(ctx, h.db, driver.PurgeDLQFilter{Queue: t.Queue, Max: 10000})
			return h.link("/dlq", url.Values{"queue": {t.Queue}, "done": {"purged"}, "n": {strconv.Itoa(len(ids))}}), err
		},
	}, {
		path: "/queues/pause", nav: "queues", queue: true, title: "Pause queue", button: "Pause",
		question: "Pause this queue? Its jobs are not claimed until it is resumed; running attempts finish and producers still insert.",
		run: func(ctx context.Context, t target) (string, error) {
			_, err := h.d.PauseQueue(ctx, h.db, t.Queue)
			return h.link("/queues", url.Values{"done": {"paused"}, "queue": {t.Queue}}), err
		},
	}, {
		path: "/queues/resume", nav: "queues", queue: true, title: "Resume queue", button: "Resume",
		question: "Resume this queue? Its workers claim its jobs at once.",
		run: func(ctx context.Context, t target) (string, error) {
			err := h.d.ResumeQueue(ctx, h.db, t.Queue)
			return h.link("/queues", url.Values{"done": {"resumed"}, "queue": {t.Queue}}), err
		},
	}}
}

// target parses an action's target from the request.
func (a action) target(r *http.Request) (target, error) {
	if a.queue {
		q := strings.TrimSpace(r.FormValue("queue"))
		if q == "" {
			return target{}, badRequestf("no queue given")
		}
		return target{Queue: q}, nil
	}
	id, err := jobIDParam(r)
	return target{JobID: id}, err
}

// confirmData is the confirmation page.
type confirmData struct {
	Title, Question, Button string
	Target                  target
	// Job is the job acted on (nil for a queue action).
	Job *driver.JobListing
	// Action is the form's action URL, Back where Cancel leads.
	Action, Back string
}

// confirm renders a's confirmation page.
func (h *Handler) confirm(a action) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.cfg.ReadOnly {
			h.render(w, r, http.StatusForbidden, "error", page{Title: "Read-only", Nav: a.nav,
				Error: "read-only: actions are disabled"})
			return
		}
		t, err := a.target(r)
		if err != nil {
			h.fail(w, r, a.nav, err)
			return
		}
		d := confirmData{Title: a.title, Question: a.question, Button: a.button, Target: t, Action: r.URL.Path}
		switch {
		case a.queue && a.nav == "dlq":
			d.Back = h.link("/dlq", url.Values{"queue": {t.Queue}})
		case a.queue:
			d.Back = h.link("/queues", nil)
		default:
			j, err := h.d.GetJob(r.Context(), h.db, t.JobID)
			if err == nil && a.dlq && !j.DLQ {
				err = fmt.Errorf("job %d: %w", t.JobID, errNotInDLQ)
			}
			if err != nil {
				h.fail(w, r, a.nav, err)
				return
			}
			d.Job = &j
			d.Back = h.link("/jobs/"+strconv.FormatInt(t.JobID, 10), nil)
		}
		h.render(w, r, http.StatusOK, "confirm", page{Title: a.title, Nav: a.nav, Data: d})
	}
}

// act runs a on a POST whose CSRF token is right, then redirects (303) to
// the page that shows the result.
func (h *Handler) act(a action) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if !h.csrfOK(r) {
			http.Error(w, "forbidden: missing or bad CSRF token (reload the page and try again)", http.StatusForbidden)
			return
		}
		t, err := a.target(r)
		if err != nil {
			h.fail(w, r, a.nav, err)
			return
		}
		to, err := a.run(r.Context(), t)
		if err != nil {
			h.fail(w, r, a.nav, err)
			return
		}
		h.cfg.Logger.InfoContext(r.Context(), "ui: Action done", "action", a.title, "job_id", t.JobID, "queue", t.Queue)
		http.Redirect(w, r, to, http.StatusSeeOther)
	}
}
