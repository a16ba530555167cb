package dubjson

import (
	"encoding/json"
	"testing"
)

// FuzzMarshal: Marshal writes exactly json.Marshal's bytes for rows of
// every value type the answers hold, whatever the strings are.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"", "plain", "a&b<c>", "é", "\u2028", "\xff\xfe", "q\"\\", "tab\there", "https://x.example/p?a=1&b=2"} {
		f.Add(s, s+"k", int64(len(s)))
	}
	f.Fuzz(func(t *testing.T, s, k string, n int64) {
		title := s
		var none *string
		rows := []Row{
			{"url": s, "clicks": n, "saleAmount": int64(-n), k: s, "title": &title, "comments": none},
			{"folder": map[string]any{"id": k, "name": s, "accessLevel": nil}, "ok": true, "n": 3, "f": 1.5e21, "list": []string{s}},
			{},
			nil,
			{"url": s, "clicks": n, "saleAmount": int64(-n), k: s, "title": &title, "comments": none},
			{"url": s, "clicks": n, "saleAmount": int64(-n), k + "x": s, "title": &title, "comments": none},
		}
		for _, v := range []any{rows, rows[0], []map[string]any{rows[1]}, []Row(nil), Row(nil), s, n, nil} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("Marshal(%#v)\n got %s\nwant %s", v, got, want)
			}
		}
	})
}
