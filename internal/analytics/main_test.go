package analytics_test

import (
	"os"
	"testing"

	"github.com/relinkhq/relink/internal/chstore/chtest"
)

// TestMain stops the package's private clickhouse-server after the tests.
func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }
