package auth

import (
	"bytes"
	"testing"
	"time"
)

func key(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

func TestSessionCodecRotation(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	old, err := NewSessionCodec([][]byte{key(1, 32)}, [][]byte{key(2, 32)})
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := NewSessionCodec([][]byte{key(3, 32), key(1, 32)}, [][]byte{key(4, 32), key(2, 32)})
	if err != nil {
		t.Fatal(err)
	}
	newOnly, err := NewSessionCodec([][]byte{key(3, 32)}, [][]byte{key(4, 32)})
	if err != nil {
		t.Fatal(err)
	}
	s := Session{UserID: "u1", WorkspaceID: "w1", CSRF: "tok", IssuedAt: now.Unix()}
	oldCookie, err := old.Encode("c", s)
	if err != nil {
		t.Fatal(err)
	}
	newCookie, err := rotated.Encode("c", s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		codec  *SessionCodec
		cookie string
		at     time.Time
		ok     bool
	}{
		{"old cookie, rotated keys", rotated, oldCookie, now, true},
		{"new cookie, rotated keys", rotated, newCookie, now, true},
		{"new cookie is made with the newest pair", newOnly, newCookie, now, true},
		{"old cookie after the old pair is dropped", newOnly, oldCookie, now, false},
		{"expired", rotated, newCookie, now.Add(SessionMaxAge + time.Minute), false},
		{"tampered", rotated, newCookie[:len(newCookie)-3] + "abc", now, false},
		{"other cookie name", rotated, func() string { v, _ := rotated.Encode("other", s); return v }(), now, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.codec.Decode("c", tc.cookie, tc.at)
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if tc.ok && got != s {
				t.Errorf("got %+v, want %+v", got, s)
			}
		})
	}
	if _, err := NewSessionCodec(nil, nil); err == nil {
		t.Error("no keys: want an error")
	}
}

func TestTokens(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || len(a) != 43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if !TokensEqual(a, a) || TokensEqual(a, b) || TokensEqual("", "") {
		t.Error("TokensEqual")
	}
}
