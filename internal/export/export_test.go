package export

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// lineCounter counts the CSV lines that reached the client's side.
type lineCounter struct {
	buf   bytes.Buffer
	lines int
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.lines += bytes.Count(p, []byte("\n"))
	return l.buf.Write(p)
}

// Rows leave as they are produced: while the producer is still at row n,
// all but the last < flushEvery rows have already been written through, so
// the export never holds more than one flush worth of rows.
func TestCSVStreamsWhileProducing(t *testing.T) {
	out := &lineCounter{}
	w := bufio.NewWriterSize(out, 64<<10)
	const total = 5000
	maxHeld := 0
	d := CSV("x.csv", []string{"n"}, func(ctx context.Context, emit Emit) error {
		for i := 1; i <= total; i++ {
			if err := emit([]string{fmt.Sprint(i)}); err != nil {
				return err
			}
			held := i + 1 - out.lines // header + i rows produced, minus those through
			maxHeld = max(maxHeld, held)
		}
		return nil
	})
	d.Write(context.Background(), w)
	if out.lines != total+1 {
		t.Fatalf("%d lines, want %d", out.lines, total+1)
	}
	if maxHeld > flushEvery {
		t.Errorf("up to %d rows held before they were sent, want at most %d", maxHeld, flushEvery)
	}
	if d.ContentType != "application/csv" || d.Filename != "x.csv" {
		t.Errorf("download %q %q", d.Filename, d.ContentType)
	}
}

// A failure mid-way ends the file with a line saying so; formulas are
// neutralised.
func TestCSVIncompleteAndFormulas(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	CSV("x.csv", []string{"a"}, func(ctx context.Context, emit Emit) error {
		if err := emit([]string{"=1+1"}); err != nil {
			return err
		}
		return errors.New("database went away")
	}).Write(context.Background(), w)
	want := "a\n'=1+1\n# export incomplete: database went away\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestFormatUSD(t *testing.T) {
	for cents, want := range map[int64]string{0: "$0.00", 5: "$0.05", 123456: "$1,234.56", -500: "-$5.00", 100000000: "$1,000,000.00"} {
		if got := FormatUSD(cents); got != want {
			t.Errorf("FormatUSD(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestPickEventColumns(t *testing.T) {
	var labels []string
	for _, c := range pickEventColumns("clickId, timestamp,,saleAmount,customerTier") {
		labels = append(labels, c.label)
	}
	if got := strings.Join(labels, "|"); got != "Click ID|Date|Sale Amount|CustomerTier" {
		t.Errorf("labels %q", got)
	}
	if countryName("DE") != "Germany" || countryName("XX") != "XX" || countryName("") != "" {
		t.Errorf("country names: %q %q", countryName("DE"), countryName("XX"))
	}
}
