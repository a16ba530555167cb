// Package ids makes Relink's public identifiers: prefixed, time-sortable IDs
// (spec/links.md §1.7) and random nanoid-style strings for keys and tokens.
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"math/big"
	mrand "math/rand/v2"
	"time"
)

// Prefixes of public IDs.
const (
	Link        = "link_"
	Tag         = "tag_"
	Folder      = "fold_"
	Domain      = "dom_"
	Workspace   = "ws_"
	User        = "user_"
	APIKey      = "key_"
	Program     = "prog_"
	Group       = "grp_"
	Reward      = "rw_"
	Partner     = "pn_"
	Enrollment  = "pge_"
	Customer    = "cus_"
	Commission  = "cm_"
	Event       = "evt_"
	Invite      = "inv_"
	EmbedToken  = "dub_embed_"
	DefaultLink = "pgdl_"
	Bounty      = "bnty_"
	Discount    = "disc_"
	DiscCode    = "dcode_"
)

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Alphanumeric is the 62-character nanoid alphabet Dub uses for keys.
const Alphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Now is the clock used for ID timestamps; tests may pin it.
var now = time.Now

// New returns prefix + a 25-character Crockford base32 body: 6 bytes of
// millisecond timestamp then 10 random bytes, read as one big number.
// Within one process IDs are strictly increasing: a second ID in the same
// millisecond (or after the clock stepped back) reuses the previous
// timestamp and adds one to the previous random part, as monotonic ULIDs
// do, so ordering by ID is ordering by creation (cursor pagination).
func New(prefix string) string {
	var buf [16]byte
	ms := uint64(now().UnixMilli())
	mono.Lock()
	if ms <= mono.ms && !increment(mono.rnd[:]) {
		ms = mono.ms
	} else {
		if ms <= mono.ms {
			ms = mono.ms + 1 // the random part overflowed: borrow the next millisecond
		}
		if _, err := rand.Read(mono.rnd[:]); err != nil {
			mono.Unlock()
			panic("ids: crypto/rand failed: " + err.Error())
		}
		mono.ms = ms
	}
	copy(buf[6:], mono.rnd[:])
	mono.Unlock()
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(buf[:6], ts[2:])
	n := new(big.Int).SetBytes(buf[:])
	if n.Sign() == 0 {
		return prefix + "0"
	}
	var out []byte
	base := big.NewInt(32)
	mod := new(big.Int)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, crockford[mod.Int64()])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return prefix + string(out)
}

// Random returns n characters drawn uniformly from alphabet with crypto/rand.
func Random(alphabet string, n int) string {
	out := make([]byte, n)
	// Rejection sampling over bytes keeps the distribution uniform. The limit
	// is an int: for alphabets dividing 256 (2, 4, …, 32, 64) it is 256 and
	// no byte is rejected (as a byte it wrapped to 0 and rejected every byte).
	limit := 256 - 256%len(alphabet)
	var all [64]byte
	// About as many bytes as characters are read (a few more for the
	// rejected ones): a click id's 9 random characters used to draw 64.
	buf := all[:min(len(all), n+n/4+4)]
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			panic("ids: crypto/rand failed: " + err.Error())
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out[i] = alphabet[int(b)%len(alphabet)]
			i++
			if i == n {
				break
			}
		}
	}
	return string(out)
}

// Nano returns a nanoid of length n over the alphanumeric alphabet.
func Nano(n int) string { return Random(Alphanumeric, n) }

// Fast returns n alphanumerics from math/rand/v2's per-thread generator:
// several times cheaper than Nano, for identifiers that are unique but need
// not be unguessable (request ids in logs).
// Each 64-bit draw gives eight characters (62⁸ divides 2⁶⁴ with a
// remainder under 2⁻¹⁶ of it: the skew is far below anything a log reader
// could see).
func Fast(n int) string {
	out := make([]byte, n)
	var x uint64
	for i := range out {
		if i%8 == 0 {
			x = mrand.Uint64()
		}
		out[i] = Alphanumeric[x%62]
		x /= 62
	}
	return string(out)
}

// CUID returns a legacy-shaped id: "c" + 24 lowercase alphanumerics. Workspaces
// use it so that "ws_" + id keeps upstream's ws_c… normalisation working.
func CUID() string { return "c" + Random("0123456789abcdefghijklmnopqrstuvwxyz", 24) }

// Click returns a click id: 16 alphanumerics, the shape of upstream's
// nanoid(16) click ids (the dub_id a destination receives). The first 7
// characters are the millisecond clock in base 62 (ASCII order is time
// order until the year 2081) and the other 9 are random (53 bits). Ids made
// close in time share a prefix, so the clicks table's primary-key index
// grows at its right edge: a batch of clicks dirties a few index pages
// instead of one page per click (measured by BenchmarkRecordClicks).
func Click() string {
	var out [16]byte
	ms := uint64(now().UnixMilli())
	for i := 6; i >= 0; i-- {
		out[i] = Alphanumeric[ms%62]
		ms /= 62
	}
	copy(out[7:], Random(Alphanumeric, 9))
	return string(out[:])
}
