package config

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEDocumentsEveryVariable keeps the configuration table
// (docs/configuration.md, where the README sends readers for every
// setting) in step with Vars.
func TestREADMEDocumentsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars {
		if !strings.Contains(string(b), "| `"+v.Name+"` |") {
			t.Errorf("docs/configuration.md has no table row for %s", v.Name)
		}
	}
}
