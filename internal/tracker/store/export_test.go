package store

// FullRebuilds is how many times r rebuilt its cache from every line.
func FullRebuilds(r *Repo) int { return r.rebuilds }
