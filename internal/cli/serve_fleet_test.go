package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sudocode/sudocode/internal/testkit"
)

// serve runs its tasks through the embedded fleet with no flag: the
// run is taken by the worker in serve's process. A second serve on the
// same checkout cannot share the server's store: it runs its tasks
// without the fleet and says so, and with --fleet asked for explicitly
// it fails saying why. A directory that is no repository has no fleet
// (and no tasks), without a word about it.
func TestServeRunsTheFleetByDefault(t *testing.T) {
	env := childEnv(t)
	repo := serveRepo(t)
	mustRun(t, runMain(t, repo, env, "", "init"))
	_, d := startServeJSON(t, env, "--dir", repo)
	if !strings.HasPrefix(d.Fleet.NATS, "nats://127.0.0.1:") {
		t.Fatalf("serve's fleet: %q, want its embedded server on loopback", d.Fleet.NATS)
	}
	api := taskAPI{url: strings.TrimSuffix(d.URL, "/"), token: stateToken(env)}
	task := api.start(t, `{"tool":"COMMAND","description":"By default","config":{"command":["sh","-c",`+strconv.Quote("echo done")+`]}}`)
	api.waitLog(t, task, "run 1 taken by worker local")
	api.waitLog(t, task, "done")
	foreignWorkerStops(t, env, d.Fleet.NATS)
	workerOffersWhatItCanRun(t, env, repo, d.Fleet.NATS)
	revokedWorkerWaits(t, env, repo, d.Fleet.NATS)

	second, d2 := startServeJSON(t, env, "--dir", repo)
	if d2.Fleet.NATS != "" {
		t.Fatalf("a second serve on the checkout runs a fleet at %s beside the first's", d2.Fleet.NATS)
	}
	testkit.WaitFor(t, 10*time.Second, "the second serve's word on the fleet", func() bool {
		return strings.Contains(second.stderr.String(), "the tasks run in this process, without the fleet") &&
			strings.Contains(second.stderr.String(), "another process runs this checkout's fleet")
	})
	r := runCmd(t, env, "", sudocodeBin, "serve", "--addr", "127.0.0.1:0", "--dir", repo, "--fleet")
	if r.code == 0 || !strings.Contains(r.stderr, "another process runs this checkout's fleet") {
		t.Fatalf("serve --fleet beside a serve with the fleet: exit %d\n%s", r.code, r.stderr)
	}

	plain, d3 := startServeJSON(t, env, "--dir", t.TempDir())
	if d3.Fleet.NATS != "" || strings.Contains(plain.stderr.String(), "fleet") {
		t.Fatalf("serve outside a repository: fleet %q, stderr:\n%s", d3.Fleet.NATS, plain.stderr)
	}
}

// foreignWorkerStops: a worker whose credentials another checkout issued
// (before its serve ever ran, so they pin no TLS authority) cannot tell
// this fleet's server from an impostor: it stops at once, saying why and
// what to do, rather than trying again for ever.
func foreignWorkerStops(t *testing.T, env []string, nats string) {
	t.Helper()
	other := serveRepo(t)
	mustRun(t, runMain(t, other, env, "", "init"))
	creds := filepath.Join(t.TempDir(), "w.creds")
	mustRun(t, runMain(t, other, env, "", "workers", "add", "stranger", "--out", creds))
	p := startWorkerWith(t, env, nats, creds)
	select {
	case <-p.exited:
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatalf("a worker with credentials for another fleet is still trying:\n%s", p.out)
	}
	if p.cmd.ProcessState.ExitCode() == 0 || !strings.Contains(p.out.String(), "cannot join the fleet at "+nats) ||
		!strings.Contains(p.out.String(), "pin none") || !strings.Contains(p.out.String(), "workers add") {
		t.Fatalf("the stranger worker: exit %d\n%s", p.cmd.ProcessState.ExitCode(), p.out)
	}
}

// workerOffersWhatItCanRun: a worker offers the agent CLIs installed on
// its machine that have a login; one installed and never logged in is
// left out, and the worker says so and how to offer it anyway.
func workerOffersWhatItCanRun(t *testing.T, env []string, repo, nats string) {
	t.Helper()
	creds := filepath.Join(t.TempDir(), "w.creds")
	mustRun(t, runMain(t, repo, env, "", "workers", "add", "clis", "--out", creds))
	bin := t.TempDir()
	for _, name := range []string{"claude", "codex"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var wenv []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "ANTHROPIC_") &&
			!strings.HasPrefix(kv, "CLAUDE_") && !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "CODEX_") {
			wenv = append(wenv, kv)
		}
	}
	wenv = append(wenv, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(), "OPENAI_API_KEY=k")
	p := startWorkerWith(t, wenv, nats, creds)
	testkit.WaitFor(t, 30*time.Second, "the worker to join", func() bool { return strings.Contains(p.out.String(), "connected to") })
	out := p.out.String()
	if !strings.Contains(out, "agents codex,") || strings.Contains(out, "agents claudecode") ||
		!strings.Contains(out, "not offering claudecode (installed, no login found: run `claude` once and log in, or set ANTHROPIC_API_KEY)") {
		t.Fatalf("a worker with Codex logged in and Claude Code installed alone says:\n%s", out)
	}
	var agents []string
	testkit.WaitFor(t, 30*time.Second, "the worker among the fleet's", func() bool {
		var ws []struct {
			ID     string   `json:"id"`
			Agents []string `json:"agents"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, runMain(t, repo, env, "", "workers", "--json")).stdout), &ws); err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.ID == "clis" {
				agents = w.Agents
				return true
			}
		}
		return false
	})
	if slices.Contains(agents, "claudecode") || !slices.Contains(agents, "codex") {
		t.Fatalf("the fleet sees the worker offer %v", agents)
	}
}

// revokedWorkerWaits: a worker whose credentials were revoked is refused
// by the server, and says it waits to be admitted, not a bare protocol
// error.
func revokedWorkerWaits(t *testing.T, env []string, repo, nats string) {
	t.Helper()
	creds := filepath.Join(t.TempDir(), "gone.creds")
	mustRun(t, runMain(t, repo, env, "", "workers", "add", "gone", "--out", creds))
	mustRun(t, runMain(t, repo, env, "", "workers", "remove", "gone"))
	p := startWorkerWith(t, env, nats, creds)
	testkit.WaitFor(t, 30*time.Second, "the revoked worker's word", func() bool {
		return strings.Contains(p.out.String(), "waiting for the coordinator at "+nats+": not admitted yet")
	})
	if strings.Contains(p.out.String(), "Authorization Violation") {
		t.Fatalf("the revoked worker says:\n%s", p.out)
	}
}

// serve admitting workers of other machines (its NATS server beyond
// loopback) without --fleet-remote says they cannot fetch from the
// workers' repository's path, and how to name it for them; with
// --fleet-remote, or on loopback, it says nothing of it.
func TestServeSaysWhenOtherMachinesCannotReachTheRepository(t *testing.T) {
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--nats-listen", "0.0.0.0:0"}, true},
		{[]string{"--nats-listen", "0.0.0.0:0", "--fleet-remote", "ssh://box/repo.git"}, false},
		{nil, false},
	} {
		env := childEnv(t)
		repo := serveRepo(t)
		p, _ := startServe(t, env, false, append([]string{"--addr", "127.0.0.1:0", "--dir", repo}, c.args...)...)
		testkit.WaitFor(t, 20*time.Second, "serve's banner", func() bool { return strings.Contains(p.stdout.String(), "client configs") })
		if got := strings.Contains(p.stdout.String(), "workers of other machines cannot fetch from that path: start serve with --fleet-remote ssh://THIS-HOST/"); got != c.warn {
			t.Errorf("serve %v: says other machines cannot fetch: %v, want %v\n%s", c.args, got, c.warn, p.stdout)
		}
	}
}
