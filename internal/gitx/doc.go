// Package gitx is the one way the product runs git. A repository's own
// configuration and attributes are untrusted input (a client can write
// .git/config through the coding tools, a pull can bring .gitattributes),
// so every git process is hardened without first reading that
// configuration, and where a program the repository names could still
// run, git runs in the kernel sandbox.
//
// Hardening, for every process (Run and Output):
//   - the environment is built from scratch: PATH, HOME and
//     XDG_CONFIG_HOME from the server, then GIT_CONFIG_NOSYSTEM,
//     GIT_TERMINAL_PROMPT=0, GIT_OPTIONAL_LOCKS=0 (unless the caller
//     writes), GIT_PAGER/PAGER=cat, GIT_EDITOR=true,
//     GIT_ALLOW_PROTOCOL=none, GIT_NO_LAZY_FETCH=1, LC_ALL=C. Nothing
//     else of the server's reaches git (no GIT_DIR, GIT_CONFIG_*,
//     GIT_EXEC_PATH …); a caller may add only GIT_INDEX_FILE and an
//     identity (GIT_AUTHOR_*, GIT_COMMITTER_*).
//   - --no-pager, --literal-pathspecs and the -c overrides of args.go go
//     before the subcommand, which must be the caller's first argument
//     (global options are this package's alone). Command-line settings
//     win over every configuration file, included ones too: no fsmonitor,
//     no hooks, no pager or editor, no external diff, no transport, ssh
//     command, askpass or credential helper, no signing program, no
//     background gc, no user-wide attributes file. Diffs (diff, log, show
//     and the plumbing diffs) get --no-ext-diff and --no-textconv, which
//     switch off the drivers attributes name without knowing their names.
//   - a deadline (DefaultTimeout unless the caller sets one).
//
// What cannot be switched off by name: filter drivers (clean, smudge,
// process) picked by .gitattributes or .git/info/attributes. Git 2.39,
// the version on the machines this runs on, has neither --attr-source
// nor GIT_ATTR_SOURCE (2.40 and 2.42), so attributes cannot be pointed
// at an empty tree, and listing the drivers first (Filters) races with a
// rewrite of .git/config. Hence the sandbox.
//
// Pinned: a command that can write a work tree can rewrite, between two
// git calls or during one, the files that say where the repository is
// (.git, commondir, objects/info/alternates). Discover reads them itself
// (pin.go), checks that the git directory, the common directory and
// every alternate lie inside the work tree (or are a linked worktree's
// registration, which the repository confirms from outside the work
// tree), and refuses anything else with a *RefusedError. Every call then
// gets GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE set to what was pinned,
// so git does not read .git or commondir again, except git's ref store,
// which re-reads commondir: it is checked again as each call starts, and
// ref updates run sandboxed. Only discovery's own rev-parse, which the
// rarer layouts need (another owner, core.worktree, an included
// configuration), runs unpinned.
//
// Sandboxed: every subcommand except the few in policy.go's unsandboxed
// list runs under internal/sandbox. It may write the work tree (with the
// git directory inside it), the pinned git and common directories where
// they lie outside it, and the caller's Writable directories; read and
// execute the system and the toolchains on PATH; read the system files
// and the user's own git configuration; no network. A path inside the
// work tree is never granted by its own name: the sandbox opens what it
// grants, and by then the path could be a link to another repository.
// A filter, or anything else the repository makes git start, gets the
// same and nothing more, and when git is killed (a timeout, a caller
// that has read enough) everything it started dies with it.
//
// Unsandboxed but hardened and pinned: rev-parse, check-ref-format,
// show-ref, symbolic-ref, rev-list, commit-tree, config, version, and
// worktree list and prune. They read refs, objects, configuration and
// worktree registrations, or write objects, configuration, a worktree's
// own HEAD or stale registrations, never a work tree file or the index,
// so no filter, fsmonitor or diff driver comes into play; hooks are off.
//
// Cost (BenchmarkStatus, `git status` on a one-file repository, 2-core
// AMD EPYC): 1.6 ms plain, 5.5 ms sandboxed. Discovery, which a call
// pays when its caller passes no Repo, reads a few small files instead
// of starting a rev-parse (BenchmarkDiscover, the same machine under
// load: 0.3 ms against 3.4 ms).
//
// Where the kernel has no Landlock, the sandbox helper still contains the
// process tree but cannot restrict files: the hardening alone applies.
package gitx
