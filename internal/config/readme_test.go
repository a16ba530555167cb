package config

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEDocumentsEveryVariable keeps the README's table in step with Vars.
func TestREADMEDocumentsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars {
		if !strings.Contains(string(b), "| `"+v.Name+"` |") {
			t.Errorf("README.md has no table row for %s", v.Name)
		}
	}
}
