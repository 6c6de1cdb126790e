package store

// FullRebuilds is how many times r rebuilt its cache from every line.
func FullRebuilds(r *Repo) int { return r.rebuilds }

// GraphScans is how many pages of blocked items r read the blockers of
// from every link rather than by looking the items up.
func GraphScans(r *Repo) int64 { return r.graphScans.Load() }
