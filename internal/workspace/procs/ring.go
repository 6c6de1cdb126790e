package procs

import "unicode/utf8"

// RingSize is how many bytes of each output stream a session keeps: past
// it the oldest bytes are dropped (and counted).
const RingSize = 1 << 20

// ring is one stream's buffer: the last RingSize bytes written, with an
// absolute read cursor. The byte at absolute offset o lives at
// buf[o%RingSize]; until the buffer has grown to RingSize nothing has
// been dropped, so o < len(buf) and the same formula holds.
type ring struct {
	buf   []byte
	total int64 // bytes ever written
	read  int64 // absolute offset of the first unread byte
	eof   bool  // the stream has ended
}

// held is how many bytes the buffer holds: the last held of total.
func (r *ring) held() int64 { return min(r.total, RingSize) }

// dropped is how many bytes the buffer has discarded, read or not.
func (r *ring) dropped() int64 { return r.total - r.held() }

// unread is how many bytes a read would return (or report omitted).
func (r *ring) unread() int64 { return r.total - r.read }

func (r *ring) write(p []byte) {
	if len(p) >= RingSize {
		r.total += int64(len(p) - RingSize)
		p = p[len(p)-RingSize:]
	}
	if need := r.total + int64(len(p)); need > int64(len(r.buf)) && len(r.buf) < RingSize {
		n := int64(max(2*len(r.buf), 4096))
		n = min(max(n, need), RingSize)
		nb := make([]byte, n)
		copy(nb, r.buf[:r.total]) // nothing dropped yet: offsets are indices
		r.buf = nb
	}
	for len(p) > 0 {
		i := int(r.total % int64(len(r.buf)))
		c := copy(r.buf[i:], p)
		p = p[c:]
		r.total += int64(c)
	}
}

// take returns the unread bytes and advances the cursor past them. It
// reports how many unread bytes were lost to overflow before this read.
// While the stream goes on, an incomplete UTF-8 sequence at the end is
// left unread so that a character is not split across two reads.
func (r *ring) take() (data []byte, omitted int64) {
	from := max(r.read, r.total-r.held())
	omitted = from - r.read
	out := make([]byte, r.total-from)
	if len(out) > 0 { // one or two segments of the circle
		first := copy(out, r.buf[int(from%int64(len(r.buf))):])
		copy(out[first:], r.buf)
	}
	keep := 0
	if !r.eof {
		keep = incompleteTail(out)
	}
	out = out[:len(out)-keep]
	r.read = from + int64(len(out))
	return out, omitted
}

// incompleteTail is the length of a trailing UTF-8 sequence that has
// started but not ended (0 when b ends on a character boundary).
func incompleteTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			// A lead byte k bytes from the end: incomplete if it
			// announces more than k bytes.
			need := 0
			switch {
			case c&0xE0 == 0xC0:
				need = 2
			case c&0xF0 == 0xE0:
				need = 3
			case c&0xF8 == 0xF0:
				need = 4
			}
			if need > k {
				return k
			}
			return 0
		}
	}
	return 0
}
