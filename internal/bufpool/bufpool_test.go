package bufpool

import "testing"

func TestPoolReusesAndBounds(t *testing.T) {
	p := New(1, 1<<20)
	b := p.Get(100)
	if len(b) != 0 || cap(b) < 100 {
		t.Fatalf("Get(100): len %d cap %d", len(b), cap(b))
	}
	b = append(b, "rows"...)
	p.Put(b)
	c := p.Get(50)
	if len(c) != 0 || &c[:1][0] != &b[:1][0] {
		t.Fatal("the buffer put back is not the one handed out again")
	}
	p.Put(c)
	if d := p.Get(1000); cap(d) < 1000 || &d[:1][0] == &b[:1][0] {
		t.Fatalf("Get(1000) returned the 100-byte buffer (cap %d)", cap(d))
	}
	// A full pool and an oversized buffer are dropped, not blocked on.
	p.Put(make([]byte, 0, 10))
	p.Put(make([]byte, 0, 10))
	p.Put(make([]byte, 0, 2<<20))
	if e := p.Get(10); cap(e) != 10 {
		t.Fatalf("kept buffer: cap %d, want the first 10-byte one", cap(e))
	}
}
