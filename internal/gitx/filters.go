package gitx

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Filters are the names of the clean/smudge/process filter drivers the
// configuration in o.Dir defines. Reading them is a second process, so a
// configuration swapped in between can name another driver: switching
// the listed ones off (Options.NoFilters) is a courtesy that keeps a
// repository's filters from running where they are not wanted, never the
// protection, which is the sandbox every work-tree call runs in.
// With o.Repo pinned, the answer is remembered while the configuration
// files it came from stay the same (filters_cache.go).
func Filters(ctx context.Context, o Options) ([]string, error) {
	configs, cacheable := "", false
	if o.Repo != nil {
		configs, cacheable = configSnapshot(o.Repo)
		if names, ok := seenFilters(o.Repo, configs); cacheable && ok {
			return slices.Clone(names), nil
		}
	}
	names, err := readFilters(ctx, o)
	if err == nil && cacheable {
		rememberFilters(o.Repo, configs, names)
	}
	return names, err
}

// readFilters asks git for the filter drivers.
func readFilters(ctx context.Context, o Options) ([]string, error) {
	out, err := Output(ctx, o, 4<<20, "config", "-z", "--get-regexp", `^filter\.`)
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) && ee.Code == 1 { // no such keys
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, rec := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		rest, ok := strings.CutPrefix(key, "filter.")
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		if name := rest[:dot]; !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, nil
}

// noFilters switches off the named filter drivers. The keys go through
// GIT_CONFIG_KEY_n, which—unlike -c—takes driver names holding '='.
func noFilters(names []string) []string {
	var vars []string
	n := 0
	for _, name := range names {
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			vars = append(vars,
				"GIT_CONFIG_KEY_"+strconv.Itoa(n)+"=filter."+name+"."+kv[0],
				"GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+kv[1])
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return append(vars, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}
