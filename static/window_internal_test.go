package static

import "testing"

// The window holds n bytes, and the next smaller one would not (10 and 24
// are brotli's bounds).
func TestBrotliWindow(t *testing.T) {
	for _, n := range []int{0, 1, 1008, 1009, 2032, 2033, 44850, 52182, 1<<24 - 16, 1 << 24, 1 << 30} {
		lg := brotliWindow(n)
		if lg < 10 || lg > 24 {
			t.Fatalf("brotliWindow(%d) = %d, outside 10–24", n, lg)
		}
		if lg < 24 && (1<<lg)-16 < n {
			t.Errorf("brotliWindow(%d) = %d: holds %d bytes", n, lg, (1<<lg)-16)
		}
		if lg > 10 && (1<<(lg-1))-16 >= n {
			t.Errorf("brotliWindow(%d) = %d: %d would hold it", n, lg, lg-1)
		}
	}
}
