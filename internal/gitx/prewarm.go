package gitx

import "context"

// Prewarm builds, in the calling goroutine, the box the sandboxed git
// calls in the repository holding dir run in, unless one is waiting: a
// caller about to run git there runs this beside other work, and the
// calls then find the box built. It reports whether a box is waiting;
// false changes nothing (the calls build their own).
func Prewarm(ctx context.Context, dir string) bool {
	o := Options{Dir: dir}
	bin, err := lookGit(o)
	if err != nil {
		return false
	}
	repo, err := Discover(ctx, o)
	if err != nil {
		return false
	}
	return warmBoxes.Prepare(policy(repo, bin, nil))
}
