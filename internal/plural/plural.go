// Package plural writes counts a person reads ("1 file", "2 files").
package plural

import "strconv"

// Count is n followed by the noun that agrees with it: one when n is 1,
// many otherwise ("0 files", "1 file", "2 files").
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
