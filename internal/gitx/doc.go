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
// Sandboxed: every subcommand except the few in policy.go's unsandboxed
// list runs under internal/sandbox (Landlock, no_new_privs, its own PID
// namespace). It may write the repository (the work tree's top level, its
// git directory and common directory) and the caller's Writable
// directories; read and execute the system and the toolchains on PATH;
// read the system files and the user's own git configuration; no TCP.
// A filter, or anything else the repository makes git start, gets the
// same and nothing more, and when git is killed (a timeout, a caller that
// has read enough) everything it started dies with it.
//
// Unsandboxed but hardened: rev-parse, check-ref-format, show-ref,
// symbolic-ref, rev-list, update-ref, commit-tree, config and version.
// They read or write refs, objects and configuration only, never a work
// tree file or the index, so no filter, fsmonitor or diff driver comes
// into play; hooks are off. Discovery (Discover, CommonDir) is such a
// rev-parse: it finds the places the sandbox grants before the sandboxed
// call, and refuses a work tree (core.worktree) that is not around the
// directory asked about, which would otherwise be granted and read.
//
// Cost (BenchmarkStatus, `git status` on a one-file repository, 2-core
// AMD EPYC): 1.6 ms plain, 5.5 ms sandboxed, 6.4 ms sandboxed with the
// discovery a caller pays when it passes no Repo: about 4 ms a call for
// re-executing the server binary as the sandbox helper.
//
// Where the kernel has no Landlock, the sandbox helper still contains the
// process tree but cannot restrict files: the hardening alone applies.
package gitx
