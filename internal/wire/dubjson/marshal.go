package dubjson

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/analytics"
)

// Marshal is json.Marshal for the answers this package builds, byte for
// byte, without reflection for their common parts: rows and maps (keys
// sorted), strings, string pointers, integers, booleans and null are
// written directly; anything else (floats, structs, other slices) goes
// through json.Marshal. A 5,000-row top_links answer
// took json.Marshal 27 ms of a 115 ms request (bench/README.md, "Aggregate
// vectors").
func Marshal(v any) ([]byte, error) {
	return appendValue(make([]byte, 0, 4096), v)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case *string:
		if x == nil {
			return append(b, "null"...), nil
		}
		return appendString(b, *x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case Row:
		return appendMap(b, x)
	case map[string]any:
		return appendMap(b, x)
	case []Row:
		if x == nil {
			return append(b, "null"...), nil
		}
		return appendSlice(b, x)
	case []map[string]any:
		if x == nil {
			return append(b, "null"...), nil
		}
		return appendSlice(b, x)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendSlice writes rows; the rows of one answer mostly share their keys,
// so the previous row's sorted keys are reused when they are this row's.
func appendSlice[M ~map[string]any](b []byte, rows []M) ([]byte, error) {
	b = append(b, '[')
	var keys []string
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		if r == nil {
			b = append(b, "null"...)
			continue
		}
		if !sameKeys(r, keys) {
			keys = sortedKeys(r, keys[:0])
		}
		var err error
		if b, err = appendSorted(b, r, keys); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func sameKeys[M ~map[string]any](m M, keys []string) bool {
	if len(m) != len(keys) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys[M ~map[string]any](m M, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendMap[M ~map[string]any](b []byte, m M) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var buf [24]string
	return appendSorted(b, m, sortedKeys(m, buf[:0]))
}

// appendSorted writes m with its keys in the given (sorted) order.
func appendSorted[M ~map[string]any](b []byte, m M, keys []string) ([]byte, error) {
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendString writes s quoted and escaped exactly as json.Marshal does
// (HTML-safe: <, > and & as \u003c, \u003e, \u0026; U+2028 and U+2029
// escaped; invalid UTF-8 as \ufffd). FuzzMarshal holds it to json.Marshal.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AnalyticsJSON is Marshal(Analytics(res)), with the rows of top_links
// written straight from the typed groups: building 5,000 fifteen-key maps
// only to encode them cost more than ranking the links.
func AnalyticsJSON(res *analytics.Result) ([]byte, error) {
	if res.GroupBy != analytics.TopLinks {
		return Marshal(Analytics(res))
	}
	b := make([]byte, 0, 64+len(res.Groups)*400)
	b = append(b, '[')
	for i := range res.Groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTopLink(b, &res.Groups[i])
	}
	return append(b, ']'), nil
}

// appendTopLink writes topLinkRow(g.Link).set(g.Counters), keys sorted as
// json.Marshal sorts a map's.
func appendTopLink(b []byte, g *analytics.Group) []byte {
	l, c := g.Link, g.Counters
	b = append(b, `{"clicks":`...)
	b = strconv.AppendInt(b, c.Clicks, 10)
	b = append(b, `,"comments":`...)
	b = appendStringPtr(b, l.Comments)
	b = append(b, `,"createdAt":"`...)
	b = l.CreatedAt.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","domain":`...)
	b = appendString(b, l.Domain)
	b = append(b, `,"folderId":`...)
	b = appendStringPtr(b, l.FolderID)
	b = append(b, `,"id":`...)
	b = appendString(b, l.ID)
	b = append(b, `,"key":`...)
	b = appendString(b, l.Key)
	b = append(b, `,"leads":`...)
	b = strconv.AppendInt(b, c.Leads, 10)
	b = append(b, `,"link":`...)
	b = appendString(b, l.ID)
	b = append(b, `,"partnerId":`...)
	b = appendStringPtr(b, l.PartnerID)
	b = append(b, `,"saleAmount":`...)
	b = strconv.AppendInt(b, c.SaleAmount, 10)
	b = append(b, `,"sales":`...)
	b = strconv.AppendInt(b, c.Sales, 10)
	b = append(b, `,"shortLink":`...)
	b = appendString(b, l.ShortLink())
	b = append(b, `,"title":`...)
	b = appendStringPtr(b, l.Title)
	b = append(b, `,"url":`...)
	b = appendString(b, l.URL)
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}
