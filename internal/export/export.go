// Package export writes Relink's downloads — links and events as CSV,
// analytics as a zip of CSVs — as upstream writes them (columns, labels,
// number formats, formula neutralising), streamed so that a million rows
// never sit in memory. It has no HTTP: the API face and the console each
// parse their request, call Links, Events or Analytics for a Download, and
// stream it with render.Download.
package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Timeout bounds a whole streamed download; each batch is a short query.
const Timeout = 10 * time.Minute

// flushEvery is how many CSV rows are buffered before they are sent.
const flushEvery = 500

// Download is a file ready to stream: its name and type, and Write, which
// runs after the response headers are sent (so with its own context): an
// error there can no longer change the status, so Write ends the file with
// a line saying it is incomplete.
type Download struct {
	Filename    string
	ContentType string
	Write       func(ctx context.Context, w *bufio.Writer)
}

// Emit writes one CSV record.
type Emit func(rec []string) error

// CSV is a download of header then the rows produce emits, flushed every
// flushEvery rows. A failure of produce (or of the client) is logged and
// the file ends with "# export incomplete: …", so a reader never takes a
// cut file for a whole one.
func CSV(filename string, header []string, produce func(ctx context.Context, emit Emit) error) Download {
	return Download{Filename: filename, ContentType: "application/csv", Write: func(ctx context.Context, w *bufio.Writer) {
		cw := csv.NewWriter(w)
		_ = cw.Write(header)
		rows := 0
		err := produce(ctx, func(rec []string) error {
			for i, v := range rec {
				rec[i] = NeutralizeFormula(v)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			rows++
			if rows%flushEvery == 0 {
				cw.Flush()
				if err := w.Flush(); err != nil {
					return fmt.Errorf("client went away: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			slog.Error("export stopped early", "file", filename, "rows", rows, "err", err)
			_ = cw.Write([]string{"# export incomplete: " + err.Error()})
		}
		cw.Flush()
		_ = w.Flush()
	}}
}

// NeutralizeFormula keeps spreadsheets from running a cell as a formula, as
// upstream's export does: a leading =, +, -, @, tab or line break gets a '.
func NeutralizeFormula(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r\n", rune(v[0])) {
		return "'" + v
	}
	return v
}

// FormatUSD writes cents as upstream's currency formatter does for USD:
// $1,234.56, -$5.00.
func FormatUSD(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, cents%100)
}
