package config

import (
	"os"
	"strings"
	"testing"
)

// TestConfigurationDocumentsEveryVariable keeps the configuration table
// (docs/configuration.md, which the README links to) in step with Vars.
func TestConfigurationDocumentsEveryVariable(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars {
		if !strings.Contains(string(b), "| `"+v.Name+"` |") {
			t.Errorf("docs/configuration.md has no table row for %s", v.Name)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/configuration.md)") {
		t.Error("README.md does not link to docs/configuration.md")
	}
}
