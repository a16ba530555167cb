package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
)

// guardInput is the one check that keeps bytes no database column can hold
// out of every handler (issue 15 item 5): a NUL byte or invalid UTF-8 in the
// path, the Host or Authorization header, a query parameter or a body field
// is a 400 bad_request naming where it was, before any handler or query runs.
// PostgreSQL refuses both in text columns (SQLite stores them, so the two
// dialects would disagree); without this check they surfaced as 500s.
//
// The cost on the redirect is a UTF-8 scan of the path and query: no
// allocation unless something is wrong. Bodies are scanned only when a
// quick test finds a NUL escape or invalid UTF-8, and then decoded to name
// the field. Multipart file parts (logo uploads) are binary and not checked;
// their form fields are.
func (s *Server) guardInput(c *fiber.Ctx) error {
	req := c.Request()
	if bad(req.URI().Path()) {
		return badInput("the path")
	}
	if bad(req.Header.Host()) {
		return badInput("the Host header")
	}
	if bad(req.Header.Peek(fiber.HeaderAuthorization)) {
		return badInput("the Authorization header")
	}
	if q := req.URI().QueryString(); len(q) > 0 {
		if field := badArg(req.URI().QueryArgs(), q); field != "" {
			return badInput("query parameter `" + field + "`")
		}
	}
	body := req.Body()
	if len(body) == 0 {
		return c.Next()
	}
	ct := string(req.Header.ContentType())
	switch {
	case strings.HasPrefix(ct, fiber.MIMEApplicationForm):
		if field := badArg(req.PostArgs(), body); field != "" {
			return badInput("form field `" + field + "`")
		}
	case strings.HasPrefix(ct, fiber.MIMEMultipartForm):
		if form, err := c.MultipartForm(); err == nil {
			for name, vals := range form.Value {
				for _, v := range vals {
					if bad([]byte(name)) || bad([]byte(v)) {
						return badInput("form field `" + safeName(name) + "`")
					}
				}
			}
		}
	default:
		// JSON (and anything sent as JSON without its content type).
		if utf8.Valid(body) && bytes.IndexByte(body, 0) < 0 && !bytes.Contains(body, []byte(`\u0000`)) {
			return c.Next()
		}
		return badInput(badJSONField(body))
	}
	return c.Next()
}

// bad reports a NUL byte or invalid UTF-8.
func bad(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

type argVisitor interface {
	VisitAll(func(key, value []byte))
}

// badArg names the first decoded argument holding a NUL or invalid UTF-8,
// or "". raw is the encoded form: when it has no escapes and is clean, the
// arguments need no visit.
func badArg(args argVisitor, raw []byte) string {
	if !bytes.ContainsAny(raw, "%+") && !bad(raw) {
		return ""
	}
	field := ""
	args.VisitAll(func(k, v []byte) {
		if field == "" && (bad(k) || bad(v)) {
			field = safeName(string(k))
		}
	})
	return field
}

// safeName makes a field name printable in an error message.
func safeName(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", `\0`), "\uFFFD")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

func badInput(where string) error {
	return apierr.Newf(apierr.BadRequest, "Invalid input in %s: text may not contain NUL bytes or invalid UTF-8.", where)
}

// badJSONField walks a JSON body token by token and names the first field
// whose raw text holds a NUL byte, a \u0000 escape or invalid UTF-8 (as a
// path like `customer.name` or `tags[2]`); "the request body" when the body
// is not JSON or the fault lies outside any string.
func badJSONField(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		obj     bool
		wantKey bool
		key     string
		idx     int
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for i, f := range stack {
			if f.obj {
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(safeName(f.key))
			} else {
				b.WriteString("[" + strconv.Itoa(f.idx) + "]")
			}
		}
		return b.String()
	}
	// afterValue advances the enclosing container past one value.
	afterValue := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].idx++
			}
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "the request body"
		}
		if err != nil {
			return "the request body"
		}
		raw := body[start:dec.InputOffset()]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				afterValue()
			}
			continue
		case string:
			n := len(stack)
			if n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = t, false
				if bad(raw) || bytes.Contains(raw, []byte(`\u0000`)) {
					if p := path(); p != "" {
						return "body field `" + p + "` (its name)"
					}
				}
				continue
			}
			if bad(raw) || bytes.Contains(raw, []byte(`\u0000`)) {
				if p := path(); p != "" {
					return "body field `" + p + "`"
				}
				return "the request body"
			}
		}
		afterValue()
	}
}
