package conversions_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// New fills in nothing a caller forgot: each required dependency left out
// is an error naming it, and a complete set builds (issue 30 item 1).
func TestNewRequiresEveryDependency(t *testing.T) {
	fx, err := conversions.NewFX("", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	db := &models.DB{}
	full := func() conversions.Deps {
		return conversions.Deps{DB: db, FX: fx, Aggregator: models.EventAggregator{}, Links: &links.Service{DB: db, Now: time.Now},
			Now: time.Now, Log: slog.Default()}
	}
	if _, err := conversions.New(full()); err != nil {
		t.Fatalf("complete deps refused: %v", err)
	}
	for name, drop := range map[string]func(*conversions.Deps){
		"DB": func(d *conversions.Deps) { d.DB = nil }, "FX": func(d *conversions.Deps) { d.FX = nil },
		"Aggregator": func(d *conversions.Deps) { d.Aggregator = nil }, "Links": func(d *conversions.Deps) { d.Links = nil },
		"Now": func(d *conversions.Deps) { d.Now = nil }, "Log": func(d *conversions.Deps) { d.Log = nil },
	} {
		d := full()
		drop(&d)
		if svc, err := conversions.New(d); err == nil || svc != nil || !strings.Contains(err.Error(), name+" is required") {
			t.Errorf("without %s: %v, %v", name, svc, err)
		}
	}
}
