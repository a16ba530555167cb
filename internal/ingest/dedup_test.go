package ingest

import (
	"testing"
	"time"
)

// The de-duplication key tells visitors, domains and keys apart, folds the
// key's case (short-link keys are case-insensitive here), and a set's
// memory of a key lasts one window and survives one early rotation.
func TestDedupSetKeys(t *testing.T) {
	d := newDedupSet(time.Hour, 1000)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	base := d.key("visitor-a", "go.acme.test", "Spring")
	if !(d.key("visitor-a", "go.acme.test", "spring") == base) {
		t.Fatal("the key's case changed the dedup key")
	}
	for name, k := range map[string]dedupKey{
		"other visitor": d.key("visitor-b", "go.acme.test", "spring"),
		"other domain":  d.key("visitor-a", "go.acme.io", "spring"),
		"other key":     d.key("visitor-a", "go.acme.test", "summer"),
		// The separators keep "ab"+"c" apart from "a"+"bc".
		"shifted boundary": d.key("visitor-a", "go.acme.tes", "tspring"),
	} {
		if k == base {
			t.Errorf("%s: same dedup key", name)
		}
	}
	if d.seen(base, at) {
		t.Fatal("first visit taken for a repeat")
	}
	if !d.seen(base, at.Add(59*time.Minute)) {
		t.Fatal("visit 59 minutes later not taken for a repeat")
	}
	if d.seen(d.key("visitor-b", "go.acme.test", "spring"), at.Add(59*time.Minute)) {
		t.Fatal("another visitor taken for a repeat")
	}
	if d.seen(base, at.Add(-time.Minute)) {
		t.Fatal("a visit stamped before the remembered one taken for a repeat")
	}
	if d.seen(base, at.Add(61*time.Minute)) {
		t.Fatal("visit past the window taken for a repeat")
	}

	// Rotation by size keeps the previous generation.
	small := newDedupSet(time.Hour, 2)
	keys := []dedupKey{small.key("v1", "d", "k"), small.key("v2", "d", "k"), small.key("v3", "d", "k")}
	for _, k := range keys {
		if small.seen(k, at) {
			t.Fatal("first visit taken for a repeat")
		}
	}
	if !small.seen(keys[0], at.Add(time.Minute)) || !small.seen(keys[2], at.Add(time.Minute)) {
		t.Fatal("a key from the previous or current generation was forgotten")
	}
}

// Two sets (two processes) draw their own seeds.
func TestDedupSetSeeds(t *testing.T) {
	a, b := newDedupSet(time.Hour, 10), newDedupSet(time.Hour, 10)
	if a.key("v", "d", "k") == b.key("v", "d", "k") {
		t.Fatal("two sets computed the same key: seeds not drawn per set")
	}
}
