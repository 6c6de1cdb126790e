package cli

import (
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/pflag"
)

// allItems is what --limit 0 asks for: every item.
const allItems = math.MaxInt32

// limitValue is a --limit flag: a count of items, 0 meaning all of them
// (as a script listing a whole tracker expects), never negative.
type limitValue struct{ n *int }

func (l limitValue) String() string {
	if l.n == nil || *l.n == allItems {
		return "0"
	}
	return strconv.Itoa(*l.n)
}

func (l limitValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a count of items (0 for all)", s)
	}
	if n == 0 {
		n = allItems
	}
	*l.n = n
	return nil
}

func (limitValue) Type() string { return "int" }

// limitFlag adds --limit (-n) to fs, into n, with its default.
func limitFlag(fs *pflag.FlagSet, n *int, def int, usage string) {
	*n = def
	fs.VarP(limitValue{n}, "limit", "n", usage+" (0: all)")
}
