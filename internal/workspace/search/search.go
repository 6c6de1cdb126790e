// Package search is search_text (docs/coding-tools.md#search_text): a parallel
// walk of the workspace that prunes filtered directories before descent,
// skips binary and non-UTF-8 files, and finds lines with a literal
// prefilter before the regular expression.
package search

import (
	"bytes"
	"container/heap"
	"context"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/sudocode/sudocode/internal/workspace"
)

// search_text (docs/coding-tools.md#search_text).
//
// One goroutine walks the tree depth-first in path order (pruning filtered
// and excluded directories before descending, never following a directory
// symlink) and hands files to GOMAXPROCS workers. A worker opens each file
// relative to its directory's anchored os.Root (one openat, no escape
// possible), reads it whole (or in line-aligned windows when large), skips
// it when binary, and runs the matcher's prefilter over the whole buffer:
// most files end there. Lines with a hit are verified, the file is checked
// for UTF-8 validity once it has a match, and previews and context are
// built only for matches that can still be among the first max_results in
// path order (later ones are only counted). Results are ordered by path,
// then line.

const (
	searchDefaultMaxResults = 1000
	searchMaxMaxResults     = 10000
	searchDefaultPreview    = 512
	previewMaxChars         = 500
	previewCutMark          = " ... [truncated]"
	searchMaxContext        = 5
	searchBufInit           = 256 << 10
)

// Variables so that tests can make them small.
var (
	searchWindow  = 8 << 20  // a larger file is searched in windows of this size
	searchMaxLine = 64 << 20 // a file with a longer line is skipped
)

// Match is one matching line.
type Match struct {
	Path    string   `json:"path" jsonschema:"Workspace-relative path of the file"`
	Line    int      `json:"line" jsonschema:"1-based line number"`
	Column  int      `json:"column" jsonschema:"1-based byte offset of the first match in the line"`
	Preview string   `json:"preview" jsonschema:"The matching line, cut to max_preview_bytes"`
	Before  []string `json:"before" jsonschema:"Lines of context before"`
	After   []string `json:"after" jsonschema:"Lines of context after"`
}

// Result is search_text's result (docs/coding-tools.md#search_text).
type Result struct {
	Query        string   `json:"query"`
	Matches      []Match  `json:"matches"`
	TotalMatches int64    `json:"total_matches" jsonschema:"Every matching line, including those past max_results"`
	Truncated    bool     `json:"truncated"`
	Warnings     []string `json:"warnings"`
}

// Options are search_text's inputs.
type Options struct {
	Query, Path                               string
	Regex, CaseSensitive                      bool
	Include, Exclude                          []string
	ContextLines, MaxResults, MaxPreviewBytes int
}

// searchWorkers is how many files are searched at once.
var searchWorkers = runtime.GOMAXPROCS(0)

// searchBudget bounds a search's total work; a variable for tests.
var searchBudget = workspace.WalkBudget

// Text searches files (search_text) for a literal (default) or an
// RE2 regex, case-insensitively unless CaseSensitive, one match per line.
func Text(ctx context.Context, r *workspace.Root, o Options) (*Result, error) {
	if o.Query == "" {
		return nil, workspace.Errorf(workspace.CodeInvalidArgument, map[string]any{"argument": "query"}, "query must not be empty")
	}
	if o.MaxResults <= 0 {
		o.MaxResults = searchDefaultMaxResults
	}
	o.MaxResults = min(o.MaxResults, searchMaxMaxResults)
	if o.MaxPreviewBytes <= 0 {
		o.MaxPreviewBytes = searchDefaultPreview
	}
	o.MaxPreviewBytes = min(max(o.MaxPreviewBytes, 80), 4096)
	o.ContextLines = min(max(o.ContextLines, 0), searchMaxContext)
	m, err := newLineMatcher(o.Query, o.Regex, o.CaseSensitive)
	if err != nil {
		return nil, err
	}
	include, err := workspace.CompileGlobs("include_globs", o.Include)
	if err != nil {
		return nil, err
	}
	exclude, err := workspace.CompileGlobs("exclude_globs", o.Exclude)
	if err != nil {
		return nil, err
	}
	if o.Path == "" {
		o.Path = "."
	}
	res, err := r.Existing(o.Path)
	if err != nil {
		return nil, err
	}
	fi, err := r.FS.Stat(res.Rel)
	if err != nil {
		return nil, workspace.OpenError(res.Rel, err)
	}
	s := &searcher{r: r, m: m, o: o, include: include, exclude: exclude, warnings: []string{}}
	s.col.init(o.MaxResults)
	walkCtx, cancel := context.WithTimeout(ctx, searchBudget)
	defer cancel()

	switch {
	case m.never:
		// A query that needs a line break matches no line.
	case fi.IsDir():
		lv := startVisibility(ctx, r, res.Rel)
		go func() {
			// git failing ends the walk: the search fails with git's error.
			if _, err := lv.wait(); err != nil {
				cancel()
			}
		}()
		s.searchTree(walkCtx, lv, res.Rel)
		vis, err := lv.wait()
		if err != nil {
			return nil, err
		}
		s.held.release(vis, &s.col)
		s.warnings = append(append([]string{}, lv.warnings...), s.warnings...)
	case fi.Mode().IsRegular():
		// A file named explicitly is searched whatever the workspace.Visibility
		// filters say; the globs still apply.
		if (len(include) == 0 || include.Match(res.Rel)) && !exclude.Match(res.Rel) {
			s.searchNamed(walkCtx, res.Rel)
		}
	default:
		s.warnings = append(s.warnings, "skipped "+res.Rel+": not a regular file")
	}

	matches := s.col.collect()
	total := s.col.total.Load()
	truncated := total > int64(len(matches))
	if truncated {
		s.warnings = append(s.warnings, "result limit reached: "+strconv.Itoa(len(matches))+" of "+strconv.FormatInt(total, 10)+
			" matching lines returned; narrow the query, path or globs, or raise max_results")
	}
	if walkCtx.Err() != nil {
		truncated = true
		s.warnings = append(s.warnings, "search time limit reached: the results are partial and total_matches is a lower bound")
	}
	if n := s.longLines.Load(); n > 0 {
		s.warnings = append(s.warnings, "skipped "+strconv.Itoa(int(n))+" file(s) with a line longer than "+strconv.Itoa(searchMaxLine>>10)+" KiB")
	}
	return &Result{Query: o.Query, Matches: matches, TotalMatches: total, Truncated: truncated, Warnings: s.warnings}, nil
}

type searcher struct {
	r                *workspace.Root
	m                *lineMatcher
	o                Options
	include, exclude workspace.GlobSet
	col              collector
	held             heldResults // found before git said what it ignores
	warnMu           sync.Mutex
	warnings         []string
	longLines        atomic.Int32
}

func (s *searcher) warn(w string) {
	s.warnMu.Lock()
	s.warnings = append(s.warnings, w)
	s.warnMu.Unlock()
}

// fileJob is one file to search: seq is its place in path order.
type fileJob struct {
	seq    int64
	dir    *dirRef // the file's directory, or nil for a symlink's target
	name   string  // name in dir
	rel    string  // workspace-relative path reported
	target string  // canonical workspace-relative target of a symlink
	// relToBase is rel below the searched directory; provisional, that
	// git had not yet said whether it ignores the file.
	relToBase   string
	provisional bool
}

func (s *searcher) searchTree(ctx context.Context, lv *lateVisibility, base string) {
	top, err := openTopDir(s.r, base)
	if err != nil {
		s.warn("cannot open directory " + base + ": " + workspace.ErrText(err))
		return
	}

	jobs := make(chan fileJob, 256)
	var wg sync.WaitGroup
	for range max(searchWorkers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := getWorker()
			defer putWorker(w)
			for job := range jobs {
				if ctx.Err() == nil {
					s.searchJob(ctx, w, job)
				}
				if job.dir != nil {
					job.dir.release()
				}
			}
		}()
	}

	var seq int64
	send := func(j fileJob) bool {
		j.seq = seq
		seq++
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			if j.dir != nil {
				j.dir.release()
			}
			return false
		}
	}
	// sure: every directory above was checked against git's ignore list
	// (false for those entered before it came).
	var walk func(d *dirRef, rel, relToBase string, sure bool) bool
	walk = func(d *dirRef, rel, relToBase string, sure bool) bool {
		if ctx.Err() != nil {
			return false
		}
		walkEntered(rel, lv)
		ents, err := d.entries()
		if err != nil {
			s.warn("cannot read directory " + rel + ": " + workspace.ErrText(err))
			return true
		}
		for _, e := range ents {
			childBase := workspace.JoinRel(relToBase, e.Name)
			vis := lv.ready()
			if vis == nil && e.IsSymlink() {
				vis, _ = lv.wait() // a link's target is checked against git's list
			}
			switch {
			case vis == nil:
				vis = lv.static
			case !sure && ignoredPath(vis, childBase):
				continue
			}
			if show, _ := vis.Visible(childBase, e.Name, false); !show {
				continue
			}
			child := workspace.JoinRel(rel, e.Name)
			if s.exclude.Match(child) {
				continue
			}
			switch {
			case e.IsDir():
				sd, err := d.child(e.Name)
				if err != nil {
					s.warn("cannot open directory " + child + ": " + workspace.ErrText(err))
					continue
				}
				more := walk(sd, child, childBase, vis != lv.static)
				sd.done()
				if !more {
					return false
				}
			case e.IsRegular():
				if len(s.include) > 0 && !s.include.Match(child) {
					continue
				}
				d.refs.Add(1)
				if !send(fileJob{dir: d, name: e.Name, rel: child, relToBase: childBase, provisional: vis == lv.static}) {
					return false
				}
			case e.IsSymlink():
				if len(s.include) > 0 && !s.include.Match(child) {
					continue
				}
				target, ok := s.symlinkTarget(vis, base, child)
				if ok && !send(fileJob{rel: child, target: target}) {
					return false
				}
			}
		}
		return true
	}
	walk(top, base, "", true)
	top.done()
	walkDispatched()
	close(jobs)
	wg.Wait()
}

// symlinkTarget resolves a symlink found by the walk: it is searched only
// when it resolves to a regular file inside the workspace that the
// workspace.Visibility filters would not have hidden; links that dangle or leave the
// workspace are never followed.
func (s *searcher) symlinkTarget(vis *workspace.Visibility, base, rel string) (string, bool) {
	res, err := s.r.Existing(rel)
	if err != nil {
		return "", false
	}
	fi, err := s.r.FS.Stat(res.Rel)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	under := res.Rel
	if base != "." {
		var ok bool
		if under, ok = strings.CutPrefix(res.Rel, base+"/"); !ok {
			under = ""
		}
	}
	parts := strings.Split(res.Rel, "/")
	if under != "" {
		parts = strings.Split(under, "/")
	}
	for i, p := range parts {
		if strings.HasPrefix(p, ".") || workspace.DefaultExcluded(p) {
			return "", false
		}
		if under != "" && vis.IgnoredByGit(strings.Join(parts[:i+1], "/")) {
			return "", false
		}
	}
	return res.Rel, true
}

// searchNamed searches one file named by the caller.
func (s *searcher) searchNamed(ctx context.Context, rel string) {
	f, err := s.r.FS.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		s.warn("cannot open " + rel + ": " + workspace.ErrText(err))
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	w := getWorker()
	defer putWorker(w)
	fr, skip := s.scanFile(ctx, w, f, fi.Size(), fileJob{rel: rel})
	switch skip {
	case skipBinary:
		s.warn("skipped " + rel + ": binary file")
	case skipEncoding:
		s.warn("skipped " + rel + ": not valid UTF-8")
	}
	if fr != nil {
		s.col.add(fr)
	}
}

func (s *searcher) searchJob(ctx context.Context, w *fileWorker, job fileJob) {
	var f io.ReadCloser
	var size int64
	if job.dir != nil {
		var ok bool
		if f, size, ok = openInDir(job.dir, job.name); !ok {
			return // vanished, unreadable, or swapped for something else
		}
	} else {
		of, err := s.r.FS.OpenFile(job.target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		fi, err := of.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			of.Close()
			return
		}
		f, size = of, fi.Size()
	}
	defer f.Close()
	if size == 0 {
		return // an empty file has no lines
	}
	fr, _ := s.scanFile(ctx, w, f, size, job)
	switch {
	case fr == nil:
	case job.provisional:
		s.held.add(fr, job.relToBase)
	default:
		s.col.add(fr)
	}
}

type skipReason int

const (
	skipNone skipReason = iota
	skipBinary
	skipEncoding
	skipLongLine
)

// fileWorker holds a worker's reusable read buffer.
type fileWorker struct{ buf []byte }

// workerPool keeps read buffers between searches of a long-running
// server.
var workerPool = sync.Pool{New: func() any { return &fileWorker{buf: make([]byte, searchBufInit)} }}

func getWorker() *fileWorker { return workerPool.Get().(*fileWorker) }

func putWorker(w *fileWorker) {
	if len(w.buf) > searchWindow { // grown for a huge line: let it go
		w.buf = make([]byte, searchBufInit)
	}
	workerPool.Put(w)
}

// scanFile searches an open file of the given size. It returns nil and
// the reason when the file is skipped.
func (s *searcher) scanFile(ctx context.Context, w *fileWorker, f io.Reader, size int64, job fileJob) (*fileResult, skipReason) {
	fs := fileSearch{
		m: s.m, ctxLines: s.o.ContextLines, previewMax: s.o.MaxPreviewBytes, line: 1,
		detail: job.seq < s.col.cutoff.Load(), keep: s.o.MaxResults,
	}
	// Read small and medium files whole, in one read, with no EOF read;
	// larger ones in windows of whole lines.
	whole := size < int64(searchWindow)
	limit := searchWindow // bytes of the buffer in use
	if whole {
		limit = int(size) + 1
	}
	if len(w.buf) < limit {
		w.buf = make([]byte, (limit+searchBufInit-1)&^(searchBufInit-1))
	}
	n, read, first, chunks := 0, int64(0), true, 0
	for {
		eof := false
		for n < limit {
			k, err := f.Read(w.buf[n:limit])
			n += k
			read += int64(k)
			if err == io.EOF || (whole && read >= size) {
				eof = true
				break
			}
			if err != nil {
				return nil, skipNone
			}
		}
		if first {
			if bytes.IndexByte(w.buf[:min(n, workspace.BinarySniffBytes)], 0) >= 0 {
				return nil, skipBinary
			}
			first = false
		}
		chunk, cut := w.buf[:n], n
		if !eof {
			cut = bytes.LastIndexByte(w.buf[:n], '\n') + 1
			if cut == 0 { // one line fills the buffer: grow it
				if limit >= searchMaxLine {
					s.longLines.Add(1)
					return nil, skipLongLine
				}
				limit *= 2
				if len(w.buf) < limit {
					nb := make([]byte, limit)
					copy(nb, w.buf[:n])
					w.buf = nb
				}
				continue
			}
			chunk = w.buf[:cut]
		}
		fs.chunkValid = false
		if !eof || chunks > 0 { // searched in windows: every window must be valid
			if !utf8.Valid(chunk) {
				return nil, skipEncoding
			}
			fs.chunkValid = true
		}
		fs.process(chunk, eof)
		if fs.invalid {
			return nil, skipEncoding
		}
		chunks++
		if eof || ctx.Err() != nil {
			break
		}
		n = copy(w.buf, w.buf[cut:n])
	}
	if fs.count == 0 {
		return nil, skipNone
	}
	for i := range fs.matches {
		fs.matches[i].Path = job.rel
	}
	return &fileResult{seq: job.seq, matches: fs.matches, count: fs.count}, skipNone
}

// fileSearch is the state of one file's search across its windows.
type fileSearch struct {
	m          *lineMatcher
	ctxLines   int
	previewMax int
	detail     bool // build match records (false: count only)
	keep       int  // most records kept

	line       int  // line number of the current window's first line
	chunkValid bool // the current window is known to be valid UTF-8
	validated  bool // the (single) window was checked
	invalid    bool

	matches  []Match
	count    int
	prevTail []string // the last ctxLines lines before the current window
	pending  []int    // matches still collecting after-context
}

var newline = []byte{'\n'}

// process searches one window of whole lines (the last one may lack its
// "\n" when final).
func (fs *fileSearch) process(buf []byte, final bool) {
	if len(fs.pending) > 0 {
		fs.fillPending(buf)
	}
	sc := fs.m.scanner(buf)
	countPos, countLine := 0, fs.line
	for pos := 0; pos < len(buf); {
		i := sc.next(pos)
		if i < 0 {
			break
		}
		ls := pos + bytes.LastIndexByte(buf[pos:i], '\n') + 1
		le := bytes.IndexByte(buf[i:], '\n')
		if le < 0 {
			le = len(buf)
		} else {
			le += i
		}
		line := trimCR(buf[ls:le])
		pos = le + 1
		col, ok := fs.m.matchLine(line, i-ls)
		if !ok {
			continue
		}
		if !fs.chunkValid && !fs.validated {
			fs.validated = true
			if !utf8.Valid(buf) {
				fs.invalid = true
				return
			}
		}
		lineNo := countLine + bytes.Count(buf[countPos:ls], newline)
		countPos, countLine = ls, lineNo
		fs.count++
		if fs.detail && len(fs.matches) < fs.keep {
			fs.record(buf, ls, le, line, lineNo, col, final)
		}
	}
	if !final {
		fs.line = countLine + bytes.Count(buf[countPos:], newline)
		if fs.ctxLines > 0 {
			tail := fs.linesBefore(buf, len(buf), fs.ctxLines)
			if len(tail) < fs.ctxLines {
				old := fs.prevTail[max(0, len(fs.prevTail)-(fs.ctxLines-len(tail))):]
				tail = append(slices.Clone(old), tail...)
			}
			fs.prevTail = tail
		}
	}
}

// record adds a match with its preview and context.
func (fs *fileSearch) record(buf []byte, ls, le int, line []byte, lineNo, col int, final bool) {
	m := Match{Line: lineNo, Column: col + 1, Preview: preview(line, fs.previewMax), Before: []string{}, After: []string{}}
	if fs.ctxLines > 0 {
		m.Before = fs.linesBefore(buf, ls, fs.ctxLines)
		if len(m.Before) < fs.ctxLines && len(m.Before) < lineNo-1 {
			need := min(fs.ctxLines, lineNo-1) - len(m.Before)
			m.Before = append(slices.Clone(fs.prevTail[max(0, len(fs.prevTail)-need):]), m.Before...)
		}
		fs.linesAfter(&m, buf, le+1)
		if len(m.After) < fs.ctxLines && !final {
			fs.pending = append(fs.pending, len(fs.matches))
		}
	}
	fs.matches = append(fs.matches, m)
}

// linesBefore returns up to n whole lines ending before offset end (a line
// start) in buf, in order.
func (fs *fileSearch) linesBefore(buf []byte, end, n int) []string {
	var out []string
	for len(out) < n && end > 0 {
		start := bytes.LastIndexByte(buf[:end-1], '\n') + 1
		out = append(out, preview(trimCR(buf[start:end-1]), fs.previewMax))
		end = start
	}
	slices.Reverse(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// linesAfter adds to m's after-context the lines of buf from offset
// start (a line start) until it has ctxLines of them or buf ends.
func (fs *fileSearch) linesAfter(m *Match, buf []byte, start int) {
	for len(m.After) < fs.ctxLines && start < len(buf) {
		e := bytes.IndexByte(buf[start:], '\n')
		if e < 0 {
			e = len(buf)
		} else {
			e += start
		}
		m.After = append(m.After, preview(trimCR(buf[start:e]), fs.previewMax))
		start = e + 1
	}
}

// fillPending completes the after-context of matches from the previous
// window with the first lines of this one.
func (fs *fileSearch) fillPending(buf []byte) {
	keep := fs.pending[:0]
	for _, idx := range fs.pending {
		m := &fs.matches[idx]
		fs.linesAfter(m, buf, 0)
		if len(m.After) < fs.ctxLines {
			keep = append(keep, idx)
		}
	}
	fs.pending = keep
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// preview is a line cut to 500 characters, then to maxBytes at a UTF-8
// boundary, with a marker when anything was cut (the marker counts within
// maxBytes).
func preview(line []byte, maxBytes int) string {
	cut := len(line)
	if len(line) > previewMaxChars { // only then can it have more than 500 characters
		chars := 0
		for i := range string(line) {
			if chars == previewMaxChars {
				cut = i
				break
			}
			chars++
		}
	}
	if cut == len(line) && len(line) <= maxBytes {
		return string(line)
	}
	if limit := maxBytes - len(previewCutMark); cut > limit {
		cut = len(workspace.UTF8Prefix(line, limit))
	}
	return string(line[:cut]) + previewCutMark
}

// fileResult is one file's matches.
type fileResult struct {
	seq     int64
	matches []Match
	count   int
}

// collector gathers file results from the workers and keeps only the
// records that can be among the first max in path order: a max-heap by
// path order drops whole files from the end while the rest still hold max
// records, and cutoff tells workers which files need no records at all.
type collector struct {
	mu     sync.Mutex
	max    int
	files  fileHeap
	kept   int
	cutoff atomic.Int64 // files after this one (in path order) are only counted
	total  atomic.Int64
}

func (c *collector) init(max int) {
	c.max = max
	c.cutoff.Store(int64(^uint64(0) >> 1))
}

func (c *collector) add(fr *fileResult) {
	c.total.Add(int64(fr.count))
	if len(fr.matches) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	heap.Push(&c.files, fr)
	c.kept += len(fr.matches)
	for c.kept-len(c.files[0].matches) >= c.max {
		c.kept -= len(heap.Pop(&c.files).(*fileResult).matches)
	}
	if c.kept >= c.max {
		c.cutoff.Store(c.files[0].seq)
	}
}

// collect returns the first max records in path order.
func (c *collector) collect() []Match {
	c.mu.Lock()
	defer c.mu.Unlock()
	files := slices.Clone([]*fileResult(c.files))
	slices.SortFunc(files, func(a, b *fileResult) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]Match, 0, min(c.kept, c.max))
	for _, f := range files {
		for _, m := range f.matches {
			if len(out) == c.max {
				return out
			}
			out = append(out, m)
		}
	}
	return out
}

// fileHeap is a max-heap of file results by path order.
type fileHeap []*fileResult

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].seq > h[j].seq }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(*fileResult)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
