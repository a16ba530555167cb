package links

import (
	"testing"
)

func BenchmarkParseInput(b *testing.B) {
	body := []byte(`{"url":"https://example.com/p","domain":"acme.link","key":"promo","tagIds":["a","b"],"utm_source":"news","geo":{"US":"https://us.example.com"},"title":"Hello"}`)
	for b.Loop() {
		if _, err := ParseInput(body, SchemaCreate); err != nil {
			b.Fatal(err)
		}
	}
}
