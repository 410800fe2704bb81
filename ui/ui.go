// Package ui is awa's web admin UI: an http.Handler that shows queues (depth
// per state, rates, pause state), jobs (keyset-paged, filtered by state,
// queue, kind and tag), one job whole, the DLQ, storage status and periodic
// schedules, and acts on them (retry, cancel, retry or purge a DLQ job,
// pause and resume a queue), each action behind a confirmation page.
//
// Pages are rendered on the server with html/template; the stylesheet is
// embedded, so the UI loads nothing from elsewhere and runs no script.
// Actions are POST only and CSRF-protected (a signed double-submit cookie);
// Config sets basic auth or a bearer token and a read-only mode. `awa ui`
// serves it alone; docs/ui.md has the whole contract.
//
//	h, err := ui.New(driver.New(), pool, &ui.Config{Prefix: "/awa", ReadOnly: true})
//	mux.Handle("/awa/", h)
package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/awa-queue/awa/driver"
)

// Config configures a Handler. The zero value serves every page and action
// at the root, to anyone who can reach it.
type Config struct {
	// Prefix is the path the handler is mounted at, such as "/awa": it
	// serves Prefix+"/..." and every link it renders starts with it. It must
	// start with "/" and not end with one. Defaults to "" (the root).
	Prefix string
	// ReadOnly hides every action and rejects every POST and confirmation
	// page with 403 Forbidden. Defaults to false.
	ReadOnly bool
	// BasicAuthUser and BasicAuthPassword, when set (both or neither), make
	// every request authenticate with HTTP basic auth. Defaults to no auth.
	BasicAuthUser, BasicAuthPassword string
	// Token, when set, lets a request in with "Authorization: Bearer
	// <Token>" (for a proxy or a script). With basic auth set too, either
	// one is enough. Defaults to no token.
	Token string
	// Hosts names the hosts, besides IP addresses and localhost, that a
	// request may name in its Host header (without port) when neither basic
	// auth nor a token is set: any other page could otherwise point a name
	// of its own at the UI's address (DNS rebinding), and its script would
	// then read the pages, CSRF token included, and post actions as the
	// UI's own origin. With credentials set, the browser has none to send
	// to such an origin, and every host is served. Defaults to none: only
	// IP addresses and localhost.
	Hosts []string
	// Secret keys the HMAC of the CSRF tokens: at least 32 bytes. Give every
	// replica behind one load balancer the same secret. Defaults to random
	// bytes drawn by New (tokens then last as long as the process).
	Secret []byte
	// PageSize is the number of jobs a listing page shows, 1 to 1000.
	// Defaults to 50.
	PageSize int
	// Logger receives the errors of failed requests. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// validate checks c and fills its defaults.
func (c *Config) validate() error {
	if c.Prefix != "" && (!strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/")) {
		return fmt.Errorf("ui: Prefix must start with / and not end with one, got %q", c.Prefix)
	}
	if (c.BasicAuthUser == "") != (c.BasicAuthPassword == "") {
		return errors.New("ui: BasicAuthUser and BasicAuthPassword go together: set both or neither")
	}
	if strings.Contains(c.BasicAuthUser, ":") {
		return errors.New("ui: BasicAuthUser must not contain a colon")
	}
	for _, h := range c.Hosts {
		if h == "" || strings.ContainsAny(h, ":/[] ") {
			return fmt.Errorf("ui: Hosts holds host names without port, got %q", h)
		}
	}
	switch {
	case c.Secret == nil:
		c.Secret = make([]byte, 32)
		if _, err := rand.Read(c.Secret); err != nil {
			return fmt.Errorf("ui: draw a CSRF secret: %w", err)
		}
	case len(c.Secret) < 32:
		return fmt.Errorf("ui: Secret must be at least 32 bytes, got %d", len(c.Secret))
	}
	if c.PageSize == 0 {
		c.PageSize = 50
	}
	if c.PageSize < 1 || c.PageSize > 1000 {
		return fmt.Errorf("ui: PageSize must be 1 to 1000, got %d", c.PageSize)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

//go:embed templates/*.html static/*
var assets embed.FS

// Handler serves the admin UI. Make one with New.
type Handler struct {
	d     *driver.Driver
	db    driver.DBTX
	cfg   Config
	mux   *http.ServeMux
	pages map[string]*template.Template
	rates *rateSampler
}

// New returns the UI of the awa install d drives (its schema), reading and
// acting through db, usually a *pgxpool.Pool; each page and action is one or
// a few single statements, outside any transaction. cfg may be nil (the
// zero Config); a Config that is wrong is an error.
func New(d *driver.Driver, db driver.DBTX, cfg *Config) (*Handler, error) {
	if d == nil || db == nil {
		return nil, errors.New("ui: New needs a driver and a database")
	}
	var c Config
	if cfg != nil {
		c = *cfg
		c.Secret = slices.Clone(cfg.Secret)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	h := &Handler{d: d, db: db, cfg: c, pages: pages, rates: newRateSampler()}
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	m := http.NewServeMux()
	p := h.cfg.Prefix
	static, _ := fs.Sub(assets, "static")
	m.Handle("GET "+p+"/static/", http.StripPrefix(p+"/static/", staticFiles(static)))
	m.HandleFunc("GET "+p+"/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, p+"/queues", http.StatusSeeOther)
	})
	m.HandleFunc("GET "+p+"/queues", h.queuesPage)
	m.HandleFunc("GET "+p+"/jobs", h.jobsPage)
	m.HandleFunc("GET "+p+"/jobs/{id}", h.jobPage)
	m.HandleFunc("GET "+p+"/dlq", h.dlqPage)
	m.HandleFunc("GET "+p+"/storage", h.storagePage)
	m.HandleFunc("GET "+p+"/periodic", h.periodicPage)
	for _, a := range h.actions() {
		m.HandleFunc("GET "+p+a.path, h.confirm(a))
		m.HandleFunc("POST "+p+a.path, h.act(a))
	}
	h.mux = m
}

// ServeHTTP authenticates the request, sets the security headers and serves
// the page or action.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r.Host) {
		http.Error(w, "forbidden: this UI has no credentials set and is not served under the host "+
			strconv.Quote(r.Host)+" (use its IP address or localhost, or list the host in Config.Hosts, awa ui -host)",
			http.StatusForbidden)
		return
	}
	principal, ok := h.authenticate(r)
	if !ok {
		if h.cfg.BasicAuthUser != "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="awa", charset="UTF-8"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Bearer realm="awa"`)
		}
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return
	}
	hd := w.Header()
	// Nothing runs but the page itself: no script, no frame, no other origin.
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "+
		"frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Method == http.MethodPost && h.cfg.ReadOnly {
		http.Error(w, "read-only: actions are disabled", http.StatusForbidden)
		return
	}
	h.mux.ServeHTTP(w, r.WithContext(withPrincipal(r.Context(), principal)))
}

// hostAllowed reports whether a request naming host (its Host header) may
// be served: always with credentials configured; else when host is an IP
// address, localhost (or a name under .localhost) or one of Config.Hosts.
func (h *Handler) hostAllowed(host string) bool {
	c := &h.cfg
	if c.BasicAuthUser != "" || c.Token != "" {
		return true
	}
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	return slices.ContainsFunc(c.Hosts, func(allowed string) bool { return strings.EqualFold(allowed, host) })
}

// authenticate checks the request against the configured credentials and
// returns who it is ("" when no credential is configured), which the CSRF
// token is bound to.
func (h *Handler) authenticate(r *http.Request) (string, bool) {
	c := &h.cfg
	if c.BasicAuthUser == "" && c.Token == "" {
		return "", true
	}
	if c.Token != "" {
		if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(t, c.Token) {
			return "token", true
		}
	}
	if c.BasicAuthUser != "" {
		if u, pw, ok := r.BasicAuth(); ok && equal(u, c.BasicAuthUser) && equal(pw, c.BasicAuthPassword) {
			return "user:" + u, true
		}
	}
	return "", false
}

// equal compares secrets in time independent of where they differ.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// staticFiles serves the embedded stylesheet, cacheable for an hour.
func staticFiles(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}
