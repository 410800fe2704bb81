package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// CSRF protection is a signed double-submit cookie. A page that renders a
// form first makes sure the browser holds the cookie csrfCookie, whose value
// is a random nonce and the HMAC (Config.Secret) of that nonce and of who is
// signed in; the form carries the same value in the field csrfField. A POST
// is accepted only when the field equals the cookie and the cookie's HMAC is
// right for the request's credentials. Another site can make a browser send
// the cookie but can neither read it nor forge one: the cookie is HttpOnly
// and SameSite=Strict, and a value planted from a sibling domain fails the
// HMAC, which binds it to this handler's secret and this user.
const (
	csrfCookie = "awa_ui_csrf"
	csrfField  = "csrf_token"
)

type principalKey struct{}

func withPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

func principalOf(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// csrfMAC is the HMAC of nonce for principal, base64url.
func (h *Handler) csrfMAC(nonce, principal string) string {
	m := hmac.New(sha256.New, h.cfg.Secret)
	m.Write([]byte("awa-ui-csrf\x00" + nonce + "\x00" + principal))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfValid reports whether token is a value this handler signed for
// principal.
func (h *Handler) csrfValid(token, principal string) bool {
	nonce, mac, ok := strings.Cut(token, ".")
	if !ok || nonce == "" {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(h.csrfMAC(nonce, principal)))
}

// csrfToken returns the request's CSRF token, setting the cookie when the
// browser holds no valid one.
func (h *Handler) csrfToken(w http.ResponseWriter, r *http.Request) string {
	principal := principalOf(r.Context())
	if c, err := r.Cookie(csrfCookie); err == nil && h.csrfValid(c.Value, principal) {
		return c.Value
	}
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics when it cannot)
	nonce := base64.RawURLEncoding.EncodeToString(b)
	token := nonce + "." + h.csrfMAC(nonce, principal)
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: token, Path: h.cfg.Prefix + "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	return token
}

// csrfOK checks a POST's token: the form field equal to the cookie, and the
// cookie signed by this handler for the request's credentials.
func (h *Handler) csrfOK(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil {
		return false
	}
	field := r.PostFormValue(csrfField)
	return field != "" && hmac.Equal([]byte(field), []byte(c.Value)) && h.csrfValid(c.Value, principalOf(r.Context()))
}
