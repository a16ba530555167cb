package auth

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestCheckPassword(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(&h, "correct horse battery") {
		t.Error("the right password was refused")
	}
	if CheckPassword(&h, "correct horse batter") {
		t.Error("a wrong password was accepted")
	}
	// An unknown user (nil hash) is refused, after a comparison that costs
	// what a real user's costs: the dummy hash has the same work factor.
	if CheckPassword(nil, "relink-dummy-password") {
		t.Error("an unknown user was accepted with the dummy hash's password")
	}
	if c, err := bcrypt.Cost(dummyHash()); err != nil || c != passwordCost {
		t.Errorf("dummy hash cost %d (%v), want %d", c, err, passwordCost)
	}
	if _, err := HashPassword("short"); err == nil {
		t.Error("a 5-character password was hashed")
	}
}

// The dummy hash is made on a process's first check whichever user it
// names: were it made only for an unknown email, that first check would
// take twice as long as a known email's and tell the two apart.
func TestFirstCheckMakesDummyForKnownUsers(t *testing.T) {
	h, err := bcrypt.GenerateFromPassword([]byte("correct horse battery"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	orig := dummyHash
	t.Cleanup(func() { dummyHash = orig })
	made := false
	dummyHash = func() []byte { made = true; return orig() }
	hash := string(h)
	if !CheckPassword(&hash, "correct horse battery") {
		t.Fatal("the right password was refused")
	}
	if !made {
		t.Error("a known user's check did not make the dummy hash")
	}
}
