package gitx

import (
	"fmt"
	"os"
	"strings"
)

// overrides are put before every subcommand. Command-line configuration
// wins over every configuration file, the repository's included, so none
// of this depends on reading that configuration first.
var overrides = []string{
	"core.fsmonitor=false",         // the fsmonitor hook is a program
	"core.hooksPath=" + os.DevNull, // no hook is found under /dev/null
	"core.pager=cat",               // with --no-pager, belt and braces
	"core.editor=true", "sequence.editor=true",
	"core.askPass=",
	"core.sshCommand=false", // were a transport ever reached: no ssh
	"credential.helper=",    // an empty value clears the list of helpers
	"core.alternateRefsCommand=",
	"core.attributesFile=" + os.DevNull, // no user-wide attributes picking drivers
	"diff.external=",
	"diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.relative=false",
	"core.quotepath=off", "color.ui=false",
	"submodule.recurse=false", "status.submoduleSummary=false", "fetch.recurseSubmodules=false",
	"protocol.allow=never", "protocol.file.allow=never", "protocol.git.allow=never",
	"protocol.ssh.allow=never", "protocol.http.allow=never", "protocol.https.allow=never",
	"protocol.ext.allow=never",
	"gpg.program=false", "gpg.ssh.program=false", "gpg.x509.program=false",
	"commit.gpgSign=false", "tag.gpgSign=false", "log.showSignature=false",
	"gc.auto=0", "maintenance.auto=false", // no background gc after a write
}

// diffLike are the subcommands that can run external diff drivers and
// textconv filters named by attributes (whose names are not known without
// reading the configuration): both are switched off by option.
var diffLike = map[string]bool{"diff": true, "log": true, "show": true, "diff-tree": true, "diff-index": true, "diff-files": true}

// argv is git's full argument list for args (subcommand first).
func argv(args []string, locks bool) ([]string, error) {
	if len(args) == 0 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		return nil, fmt.Errorf("gitx: the first argument must be the subcommand, not %q: global options are gitx's", first(args))
	}
	out := make([]string, 0, 2*len(overrides)+len(args)+6)
	out = append(out, "--no-pager", "--literal-pathspecs")
	if !locks {
		out = append(out, "--no-optional-locks")
	}
	for _, o := range overrides {
		out = append(out, "-c", o)
	}
	out = append(out, args[0])
	if diffLike[args[0]] {
		out = append(out, "--no-ext-diff", "--no-textconv")
	}
	return append(out, args[1:]...), nil
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
