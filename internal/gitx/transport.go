package gitx

import (
	"fmt"
	"os"
	"strings"
)

// transportCommands are the subcommands Options.Transport lets reach
// another repository.
var transportCommands = map[string]bool{"fetch": true, "push": true, "clone": true}

// transportProtocols are what a transport may speak: a path on this
// machine, ssh and https; never git's unauthenticated protocol, plain
// http, or ext (a command line named by the URL).
const transportProtocols = "file:ssh:https"

// transportOverrides replace the protocol overrides (all never) for a
// transport. ssh is the user's ssh with their ~/.ssh/config: a
// repository's core.sshCommand or its GIT_SSH_COMMAND are not looked at.
var transportOverrides = []string{
	"protocol.allow=never",
	"protocol.file.allow=always", "protocol.ssh.allow=always", "protocol.https.allow=always",
	"core.sshCommand=ssh",
}

// checkTransport refuses a transport for any other subcommand, and a
// URL in the arguments whose protocol is not one of transportProtocols
// (git refuses it too: this says why, in words).
func checkTransport(args []string) error {
	if len(args) == 0 || !transportCommands[args[0]] {
		return fmt.Errorf("gitx: a transport is for fetch, push and clone, not %q", first(args))
	}
	for _, a := range args[1:] {
		if a == "--" {
			continue
		}
		for _, opt := range []string{"--receive-pack", "--upload-pack", "--exec", "-u"} {
			if a == opt || strings.HasPrefix(a, opt+"=") {
				return fmt.Errorf("gitx: %s names a command: not allowed", opt)
			}
		}
		scheme, _, ok := strings.Cut(a, "::")
		if ok && !strings.Contains(scheme, "/") {
			return fmt.Errorf("gitx: remote %q: a remote helper (%s::) is not allowed", a, scheme)
		}
		scheme, _, ok = strings.Cut(a, "://")
		if ok && !strings.Contains(scheme, "/") && scheme != "file" && scheme != "ssh" && scheme != "https" {
			return fmt.Errorf("gitx: remote %q: protocol %s is not allowed (only a path, ssh and https)", a, scheme)
		}
	}
	return nil
}

// withTransport is full (argv's) with the protocol overrides made those
// of a transport.
func withTransport(full []string) []string {
	out := make([]string, 0, len(full)+2*len(transportOverrides))
	for i := 0; i < len(full); i++ {
		if full[i] == "-c" && i+1 < len(full) && (strings.HasPrefix(full[i+1], "protocol.") || strings.HasPrefix(full[i+1], "core.sshCommand=")) {
			i++
			continue
		}
		out = append(out, full[i])
	}
	extra := make([]string, 0, 2*len(transportOverrides))
	for _, o := range transportOverrides {
		extra = append(extra, "-c", o)
	}
	// The overrides go before the subcommand, as argv put them.
	at := len(out) - 1
	for i, a := range out {
		if transportCommands[a] && (i == 0 || out[i-1] != "-c") {
			at = i
			break
		}
	}
	out = append(out[:at:at], append(extra, out[at:]...)...)
	if out[len(extra)+at] == "push" && localRemote(out[len(extra)+at:]) {
		// The receiving side of a push to a path runs here, with its
		// repository's configuration, hooks included: not with ours.
		i := len(extra) + at + 1
		out = append(out[:i:i], append([]string{receivePack}, out[i:]...)...)
	}
	return out
}

// receivePack is the receiving side of a push, hooks off whatever its
// repository says, and no gc started in a repository that other work
// is writing. Over ssh the other machine runs its own.
var receivePack = "--receive-pack=git -c core.hooksPath=" + os.DevNull + " -c core.fsmonitor=false -c receive.autogc=false receive-pack"

// transportEnviron is env with the protocols a transport may speak.
func transportEnviron(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "GIT_ALLOW_PROTOCOL=") {
			kv = "GIT_ALLOW_PROTOCOL=" + transportProtocols
		}
		out = append(out, kv)
	}
	return out
}

// localRemote reports whether the remote of a push (the argument after
// "--") is a path on this machine, whose receiving side runs here.
func localRemote(push []string) bool {
	for i, a := range push {
		if a == "--" && i+1 < len(push) {
			r := push[i+1]
			return strings.HasPrefix(r, "/") || strings.HasPrefix(r, "file://") || strings.HasPrefix(r, ".")
		}
	}
	return true // no "--": assume the worst
}
