package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/numfmt"
)

// page is what every template gets: the layout's fields and the page's own
// Data.
type page struct {
	Title    string
	Nav      string // the menu entry to highlight
	Prefix   string
	ReadOnly bool
	CSRF     string // the form token, set on pages that render a form
	Flash    string // what the last action did
	Error    string // why the page could not show what was asked
	Refresh  int    // seconds between reloads (0: none)
	Data     any
}

// parsePages parses each page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("ui: parse layout: %w", err)
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(assets, n)
		if err != nil {
			return nil, fmt.Errorf("ui: parse %s: %w", base, err)
		}
		pages[strings.TrimSuffix(base, ".html")] = t
	}
	return pages, nil
}

var funcs = template.FuncMap{
	"ts": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return "—"
			}
			return v.UTC().Format("2006-01-02 15:04:05Z")
		case *time.Time:
			if v == nil {
				return "—"
			}
			return v.UTC().Format("2006-01-02 15:04:05Z")
		}
		return fmt.Sprint(t)
	},
	"num": numfmt.Thousands,
	"bytes": func(n int64) string {
		const unit = 1024
		if n < unit {
			return fmt.Sprintf("%d B", n)
		}
		div, exp := int64(unit), 0
		for m := n / unit; m >= unit; m /= unit {
			div *= unit
			exp++
		}
		return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
	},
	"perMinute": func(v float64) string {
		if v >= 100 {
			return fmt.Sprintf("%.0f", v)
		}
		return fmt.Sprintf("%.1f", v)
	},
	"pretty": prettyJSON,
	"list":   func(s ...string) []string { return s },
	"navTitle": func(n string) string {
		return map[string]string{"queues": "Queues", "jobs": "Jobs", "dlq": "DLQ", "storage": "Storage",
			"periodic": "Periodic"}[n]
	},
	"join": strings.Join,
	"deref": func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	},
}

// prettyJSON indents a JSON document for a <pre>; "" when there is none.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// render writes the page tmpl with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, tmpl string, p page) {
	p.Prefix = h.cfg.Prefix
	p.ReadOnly = h.cfg.ReadOnly
	if !h.cfg.ReadOnly && p.CSRF == "" {
		p.CSRF = h.csrfToken(w, r)
	}
	var b bytes.Buffer
	if err := h.pages[tmpl].ExecuteTemplate(&b, "layout.html", p); err != nil {
		h.cfg.Logger.ErrorContext(r.Context(), "ui: Render a page", "page", tmpl, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fail renders the error page for err: 404 for a job that does not exist,
// 409 for a state that does not allow the action, 400 for a bad argument,
// 500 (logged) for anything else.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, nav string, err error) {
	status := statusOf(err)
	if status == http.StatusInternalServerError {
		h.cfg.Logger.ErrorContext(r.Context(), "ui: Request failed", "path", r.URL.Path, "error", err)
	}
	h.render(w, r, status, "error", page{Title: http.StatusText(status), Nav: nav, Error: err.Error()})
}

func statusOf(err error) int {
	var bad *badRequest
	switch {
	case errors.Is(err, driver.ErrJobNotFound), errors.Is(err, errNotInDLQ):
		return http.StatusNotFound
	case errors.Is(err, driver.ErrInvalidJobState):
		return http.StatusConflict
	case errors.As(err, &bad), errors.Is(err, driver.ErrInvalidArgument), errors.Is(err, driver.ErrInvalidQueue),
		errors.Is(err, driver.ErrInvalidKind), errors.Is(err, driver.ErrInvalidTags):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// badRequest is a parameter the UI itself rejects.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badRequestf(format string, a ...any) error { return &badRequest{msg: fmt.Sprintf(format, a...)} }

// link is Prefix+p with query q (its empty values dropped).
func (h *Handler) link(p string, q url.Values) string {
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			delete(q, k)
		}
	}
	if len(q) == 0 {
		return h.cfg.Prefix + p
	}
	return h.cfg.Prefix + p + "?" + q.Encode()
}
