package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/securecookie"
)

// Session is what a console session cookie carries. It is signed and
// encrypted with securecookie, so the client can neither read nor forge it.
// An anonymous session (UserID empty) carries only the CSRF token, so the
// sign-in form is protected too.
type Session struct {
	UserID      string `json:"u,omitempty"`
	SessionID   string `json:"s,omitempty"` // the server-side session (console_sessions); revoked when its row is gone
	WorkspaceID string `json:"w,omitempty"` // the workspace the console shows
	CSRF        string `json:"c"`           // synchroniser token for forms and htmx requests
	IssuedAt    int64  `json:"t"`           // unix seconds; sessions older than SessionMaxAge are refused
}

// SessionMaxAge is how long a session lasts after sign-in.
const SessionMaxAge = 14 * 24 * time.Hour

// SessionCodec encodes sessions with the newest key pair and decodes them with
// any configured pair, so keys can be rotated without signing everyone out:
// put the new pair first and keep the old one until the old cookies expired.
type SessionCodec struct {
	codecs []securecookie.Codec
}

// NewSessionCodec builds a codec from hash and block keys, newest first.
func NewSessionCodec(hashKeys, blockKeys [][]byte) (*SessionCodec, error) {
	if len(hashKeys) == 0 || len(hashKeys) != len(blockKeys) {
		return nil, errors.New("session keys: want at least one hash/block key pair")
	}
	pairs := make([][]byte, 0, 2*len(hashKeys))
	for i := range hashKeys {
		pairs = append(pairs, hashKeys[i], blockKeys[i])
	}
	codecs := securecookie.CodecsFromPairs(pairs...)
	for _, c := range codecs {
		sc := c.(*securecookie.SecureCookie)
		sc.MaxAge(int(SessionMaxAge / time.Second))
		sc.SetSerializer(securecookie.JSONEncoder{})
	}
	return &SessionCodec{codecs: codecs}, nil
}

// RandomSessionKeys makes one random hash/block key pair (dev mode without
// configured keys: sessions then last until the process restarts).
func RandomSessionKeys() (hash, block [][]byte) {
	return [][]byte{securecookie.GenerateRandomKey(64)}, [][]byte{securecookie.GenerateRandomKey(32)}
}

// Encode signs and encrypts s for the cookie name.
func (c *SessionCodec) Encode(name string, s Session) (string, error) {
	v, err := securecookie.EncodeMulti(name, s, c.codecs[0])
	if err != nil {
		return "", fmt.Errorf("encode session: %w", err)
	}
	return v, nil
}

// Decode verifies and decrypts a cookie value with any key pair. A session
// older than SessionMaxAge, tampered or made with unknown keys is an error.
func (c *SessionCodec) Decode(name, value string, now time.Time) (Session, error) {
	var s Session
	if err := securecookie.DecodeMulti(name, value, &s, c.codecs...); err != nil {
		return Session{}, fmt.Errorf("decode session: %w", err)
	}
	if s.CSRF == "" || now.Sub(time.Unix(s.IssuedAt, 0)) > SessionMaxAge {
		return Session{}, errors.New("decode session: expired or incomplete")
	}
	return s, nil
}

// NewToken is 32 random bytes, base64url: CSRF tokens, invite tokens.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// TokensEqual compares two secrets in constant time.
func TokensEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
