package mcptracker

import "encoding/json"

// fitByLimit is the result of read(limit) for the largest limit, up to the
// one asked for, whose result fits the budget (a limit of 1 when none
// does). For results whose next_cursor continues several lists at once
// (ready, blocked), a page is cut by reading it again with a smaller
// limit, so that the cursor is the store's own for the items kept; a page
// within the budget is read once.
func fitByLimit[T any](s *server, limit int, read func(limit int) (T, error)) (T, error) {
	fits := func(v T) bool { b, _ := json.Marshal(v); return len(b) <= s.opts.Budget }
	limit = s.readLimit(limit)
	v, err := read(limit)
	if err != nil || limit <= 1 || fits(v) {
		return v, err
	}
	var best T
	found := false
	for lo, hi := 1, limit-1; lo <= hi; {
		mid := lo + (hi-lo)/2
		w, err := read(mid)
		if err != nil {
			return w, err
		}
		if fits(w) {
			best, found, lo = w, true, mid+1
		} else {
			hi = mid - 1
		}
	}
	if !found {
		return read(1)
	}
	return best, nil
}
