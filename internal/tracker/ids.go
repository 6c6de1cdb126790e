package tracker

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
)

// NewUUID returns a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// HashLen is the length of the random part of a new id, given how many
// entities of its kind exist: 4 base36 characters (1.7 million values)
// while few exist, growing to 8 so that ids made on other branches and
// clones stay unlikely to collide.
func HashLen(count int) int {
	switch {
	case count < 500:
		return 4
	case count < 20_000:
		return 5
	case count < 600_000:
		return 6
	default:
		return 8
	}
}

// Hash returns n base36 characters derived from a UUID; longer n extend a
// shorter one, so a collision can be resolved by growing the id.
func Hash(uuid string, n int) string {
	var v big.Int
	v.SetString(strings.ReplaceAll(uuid, "-", ""), 16)
	s := v.Text(36)
	for len(s) < 25 {
		s = "0" + s
	}
	if n > len(s) {
		n = len(s)
	}
	return s[:n]
}

// IssueID, SpecID and FeedbackID are the id forms: prefix-hash,
// prefix-spec-hash and prefix-fb-hash.
func IssueID(prefix, hash string) string    { return prefix + "-" + hash }
func SpecID(prefix, hash string) string     { return prefix + "-spec-" + hash }
func FeedbackID(prefix, hash string) string { return prefix + "-fb-" + hash }
