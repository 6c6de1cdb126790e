package fleet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The streams and buckets; see the package doc for what each holds.
const (
	offerStreamPrefix = "SUDOCODE_OFFERS_" // + repo: one work-queue stream per repository
	runStream         = "SUDOCODE_RUNS"
	workersBucket     = "sudocode-workers"
	leasesBucket      = "sudocode-leases"
	claimsBucket      = "sudocode-claims"
	cancelsBucket     = "sudocode-cancels"

	// runMaxAge is how long run messages, claim records and cancellations
	// are kept: long enough for a coordinator that was down to catch up.
	runMaxAge = 7 * 24 * time.Hour
	// dedupWindow is how long offering the same run again is a no-op.
	dedupWindow = 24 * time.Hour
)

// The names' patterns are compiled on first use, not at the program's
// start: a bounded repetition compiles to one state per repeat, and the
// sandbox's stages, which re-execute this binary for every boxed command,
// never check a name.
var (
	repoRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,64}$`) })
	agentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_-]{1,64}$`) })
	// A task id and a worker id become one subject token and one KV key
	// token each, so they may hold no '.', '*', '>' or spaces.
	taskRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })
	workerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })
)

func checkRepo(repo string) error {
	if !repoRE().MatchString(repo) {
		return fmt.Errorf("fleet: repo %q: want 1-64 of [a-z0-9-]", repo)
	}
	return nil
}

func checkAgent(agent string) error {
	if !agentRE().MatchString(agent) {
		return fmt.Errorf("fleet: agent %q: want 1-64 of [a-z0-9_-]", agent)
	}
	return nil
}

func checkWorkerID(id string) error {
	if !workerRE().MatchString(id) {
		return fmt.Errorf("fleet: worker id %q: want 1-64 of [A-Za-z0-9_-]", id)
	}
	return nil
}

func checkRun(repo, task string, run int) error {
	if err := checkRepo(repo); err != nil {
		return err
	}
	if !taskRE().MatchString(task) {
		return fmt.Errorf("fleet: task %q: want 1-128 of [A-Za-z0-9_-]", task)
	}
	if run < 1 {
		return fmt.Errorf("fleet: task %s run %d: runs count from 1", task, run)
	}
	return nil
}

func offerStream(repo string) string { return offerStreamPrefix + repo }

// offerSubject is where offers of repo for agent are published; the
// stream holds sudocode.offer.<repo>.*, one consumer per agent.
func offerSubject(repo, agent string) string { return "sudocode.offer." + repo + "." + agent }

// runKey names one run in the lease, claim and cancel buckets.
func runKey(repo, task string, run int) string {
	return repo + "." + task + "." + strconv.Itoa(run)
}

// runSubject is where worker sends messages of a run: the worker id is
// the last token so permissions can stamp it (a worker may publish only
// under its own id).
func runSubject(repo, task string, run int, worker string) string {
	return "sudocode.run." + runKey(repo, task, run) + "." + worker
}

// workerOfSubject is the last token of a run subject.
func workerOfSubject(subject string) string {
	return subject[strings.LastIndexByte(subject, '.')+1:]
}
