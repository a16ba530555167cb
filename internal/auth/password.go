// Package auth holds credentials: password hashing for console users.
package auth

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// passwordCost is bcrypt's work factor: deliberately slow (~50-100 ms).
const passwordCost = 12

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 8

// HashPassword returns a bcrypt hash of password.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLength {
		return "", fmt.Errorf("password must be at least %d characters", MinPasswordLength)
	}
	if len(password) > 72 {
		return "", errors.New("password must be at most 72 bytes")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// dummyHash is compared against when the user does not exist, so a wrong
// email takes as long as a wrong password. It is made on first use, not at
// package initialisation: a cost-12 hash is ~0.25 CPU-seconds, which every
// process linking this package paid at start (every `relink` command, every
// server start, every test binary; GODEBUG=inittrace=1 showed 250–520 ms).
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("relink-dummy-password"), passwordCost)
	return h
})

// CheckPassword reports whether password matches hash. A nil hash (unknown
// user) still pays the full bcrypt cost. The dummy hash is made by the
// process's first check, whichever user it names, so that first check takes
// as long for a known email as for an unknown one.
func CheckPassword(hash *string, password string) bool {
	dummy := dummyHash()
	if hash == nil {
		_ = bcrypt.CompareHashAndPassword(dummy, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(*hash), []byte(password)) == nil
}
