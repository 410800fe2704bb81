package driver

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// SignatureHeader carries a callback request's signature:
// "sha256=" + hex(HMAC-SHA256(secret, raw body)). docs/callbacks.md.
const SignatureHeader = "X-Awa-Signature"

// maxCallbackBody bounds a callback request's body: a payload is at most
// 64 KiB as text, with room for the other fields and JSON escapes.
const maxCallbackBody = 256 << 10

// SignCallback returns the SignatureHeader value of body under secret: what
// a sender of callback requests puts in the header.
func SignCallback(secret, body []byte) string {
	return "sha256=" + hex.EncodeToString(callbackMAC(secret, body))
}

func callbackMAC(secret, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}

// CallbackHandler returns the HTTP receiver of callback resolutions: a POST
// whose body is a CallbackResolution as JSON ({"token", "action": complete,
// fail, retry or resume, "payload", "error", "run_at"}), signed in
// SignatureHeader with the operator's shared secret. The signature is
// checked, in constant time, before anything else is read: a request
// unsigned or wrongly signed gets 401 and changes nothing. Then a body that
// is not such JSON, or an invalid token, action or payload, gets 400; an
// applied resolution 200 and a stale one 409, both with the CallbackOutcome
// as JSON. A replayed request is stale: a token resolves once. An empty
// secret is refused (ErrInvalidConfig). Failures of the database (500) are
// logged to slog.Default(). docs/callbacks.md.
func CallbackHandler(r CallbackResolver, secret []byte) (http.Handler, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: CallbackHandler needs a resolver", ErrInvalidConfig)
	}
	if len(secret) == 0 {
		return nil, fmt.Errorf("%w: CallbackHandler needs a non-empty secret", ErrInvalidConfig)
	}
	return &callbackHandler{r: r, secret: bytes.Clone(secret)}, nil
}

type callbackHandler struct {
	r      CallbackResolver
	secret []byte
}

func (h *callbackHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxCallbackBody+1))
	if err != nil {
		httpError(w, http.StatusBadRequest, "cannot read the body")
		return
	}
	if len(body) > maxCallbackBody {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", maxCallbackBody))
		return
	}
	if !h.signed(req.Header.Get(SignatureHeader), body) {
		httpError(w, http.StatusUnauthorized, "missing or wrong "+SignatureHeader)
		return
	}
	var res CallbackResolution
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil || dec.More() {
		httpError(w, http.StatusBadRequest, "body must be one JSON object {token, action, payload, error, run_at}")
		return
	}
	out, err := h.r.ResolveCallback(req.Context(), res)
	switch {
	case errors.Is(err, ErrInvalidArgument):
		httpError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		slog.ErrorContext(req.Context(), "awa: Callback resolution failed", slog.String("action", string(res.Action)),
			slog.String("error", err.Error()))
		httpError(w, http.StatusInternalServerError, "resolution failed; try again")
		return
	}
	status := http.StatusOK
	if out.Outcome != Applied {
		status = http.StatusConflict
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

// signed reports whether header is body's signature under the secret.
func (h *callbackHandler) signed(header string, body []byte) bool {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	return hmac.Equal(sig, callbackMAC(h.secret, body))
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{msg})
}
