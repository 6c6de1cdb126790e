package tracker

// Blocker is an unfinished item that keeps another from being ready. Via
// names the ancestor whose blocker it is, when the block is inherited
// through parent-child; it is nil (null, as every absent optional value
// in a result) for a direct blocker.
type Blocker struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Status string  `json:"status"`
	Type   string  `json:"type"`
	Via    *string `json:"via"`
}

// BlockGraph answers the questions readiness asks of the stored graph.
type BlockGraph interface {
	// BlockTargets are the ids id waits on: the targets of its outgoing
	// blocks and depends-on links.
	BlockTargets(id string) ([]string, error)
	// Parents are the ids of id's parents (sources of parent-child links to id).
	Parents(id string) ([]string, error)
	// Unfinished returns the blocker description of id when it is not
	// done, and ok=false when it is done or unknown.
	Unfinished(id string) (b Blocker, ok bool, err error)
}

// Blockers returns id's unfinished blockers: its own, then each ancestor's
// (through parent-child, nearest first), each once.
func Blockers(g BlockGraph, id string) ([]Blocker, error) {
	out := []Blocker{}
	seenBlocker := map[string]bool{}
	visited := map[string]bool{id: true}
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		targets, err := g.BlockTargets(cur)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			if seenBlocker[t] {
				continue
			}
			b, ok, err := g.Unfinished(t)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			seenBlocker[t] = true
			if cur != id {
				b.Via = &cur
			}
			out = append(out, b)
		}
		parents, err := g.Parents(cur)
		if err != nil {
			return nil, err
		}
		for _, p := range parents {
			if !visited[p] {
				visited[p] = true
				queue = append(queue, p)
			}
		}
	}
	return out, nil
}

// Reaches reports whether to can be reached from from by following next:
// adding an edge to→from of the same kind would then close a cycle.
func Reaches(from, to string, next func(string) ([]string, error)) (bool, error) {
	seen := map[string]bool{from: true}
	stack := []string{from}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == to {
			return true, nil
		}
		ns, err := next(cur)
		if err != nil {
			return false, err
		}
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return false, nil
}
