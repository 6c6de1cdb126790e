package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/app"
	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/fleet"
	"github.com/sudocode/sudocode/internal/fleetrun"
	"github.com/sudocode/sudocode/internal/natsbus"
)

// workersOptions are the flags of "sudocode workers" and its commands.
type workersOptions struct {
	project, connect, creds, out string
	g                            *globalOptions
	stdio                        IO
}

func newWorkersCmd(g *globalOptions, stdio IO) *cobra.Command {
	o := &workersOptions{g: g, stdio: stdio}
	cmd := &cobra.Command{
		Use:   "workers",
		Short: "List the fleet's workers, and issue or revoke their credentials",
		Long: `List the workers of the project's fleet that are alive: each one's name, host,
agent CLIs, labels, runs in progress against its slots, and last heartbeat. The
list is read from the coordinator ("sudocode serve" in this project, on
this machine) unless --connect and --creds name another.

"workers add NAME" issues a worker its credentials, for this project's
repository only: a worker never receives another repository's runs. "workers
remove NAME" revokes them; a running serve shuts the worker out within seconds.`,
		Example: `  sudocode workers
  sudocode workers add gpu-box --out gpu-box.creds
  sudocode workers remove gpu-box`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorkersList(cmd.Context(), o) },
	}
	cmd.PersistentFlags().StringVar(&o.project, "project", "", "the project `DIR` (default the working directory)")
	f := cmd.Flags()
	f.StringVar(&o.connect, "connect", "", "a coordinator's NATS `URL` (default this project's, from its serve)")
	f.StringVar(&o.creds, "creds", "", "credentials `FILE` for --connect")
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Issue a worker its credentials for this project's repository",
		Long: `Issue the worker NAME credentials for this project's repository and write them to
--out (default NAME.creds, mode 0600; never over an existing file). Copy the file
to the worker's machine and run there the command this prints. A running serve
admits the worker within seconds. The file pins the TLS authority of serve's
embedded server (made at its first start): the worker trusts no other server.
Issue credentials after serve first ran; for an external server (serve --nats)
they pin none.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runWorkersAdd(cmd.Context(), o, args[0]) },
	}
	add.Flags().StringVar(&o.out, "out", "", "where to write the credentials `FILE` (default NAME.creds)")
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Revoke a worker's credentials",
		Args:  exactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runWorkersRemove(cmd.Context(), o, args[0]) },
	}
	cmd.AddCommand(add, remove)
	return cmd
}

// fleetDir is the fleet directory of the project's repository.
func (o *workersOptions) fleetDir(ctx context.Context) (dir, key string, err error) {
	project, err := app.ProjectDir(o.project, o.stdio.Dir)
	if err != nil {
		return "", "", err
	}
	key, dir, err = fleetrun.Locate(ctx, o.stdio.Env, project)
	return dir, key, err
}

func runWorkersAdd(ctx context.Context, o *workersOptions, name string) error {
	dir, key, err := o.fleetDir(ctx)
	if err != nil {
		return err
	}
	out := o.stdio.path(o.out)
	if out == "" {
		out = o.stdio.path(name + ".creds")
	}
	if _, err := os.Lstat(out); err == nil {
		return usageError{fmt.Errorf("%s exists: choose another --out, or remove it first", out)}
	}
	// The embedded server's authority, which the worker then trusts
	// alone; none for an external server (serve --nats), or before serve
	// first started here (said below).
	ca, err := fleetrun.FleetCA(dir)
	if err != nil {
		return err
	}
	reg := fleetrun.OpenRegistry(dir)
	c, err := reg.Issue(name, []string{key}, time.Now())
	if err != nil {
		return err
	}
	c.CA = ca
	if err := natsbus.WriteCreds(out, c); err != nil {
		_ = reg.Remove(name) // nobody holds the seed
		return err
	}
	url, ran := "nats://COORDINATOR:4222", false
	if b, err := os.ReadFile(filepath.Join(dir, "url")); err == nil {
		url, ran = strings.TrimSpace(string(b)), true
	}
	if o.g.json {
		return writeJSON(o.stdio.Out, map[string]any{"name": name, "repos": []string{key}, "creds": out, "connect": url, "tls_pinned": ca != ""})
	}
	fmt.Fprintf(o.stdio.Out, "worker %s may work on %s; its credentials are in %s (keep them secret).\n", name, key, out)
	if ca == "" && !ran {
		fmt.Fprintf(o.stdio.Out, "(serve has not run the fleet here yet, so these credentials pin no TLS authority: right for an external server\n"+
			" (serve --nats), refused by serve's embedded one: for that, start serve first, then issue them again with\n"+
			" sudocode workers remove %s; sudocode workers add %s)\n", name, name)
	}
	fmt.Fprintf(o.stdio.Out, "On its machine, run:\n  sudocode worker --connect %s --creds %s\n", url, filepath.Base(out))
	if strings.Contains(url, "127.0.0.1") || strings.Contains(url, "localhost") {
		fmt.Fprintln(o.stdio.Out, "(serve's NATS listens on loopback: for another machine, start it with --nats-listen 0.0.0.0:4222)")
	}
	return nil
}

func runWorkersRemove(ctx context.Context, o *workersOptions, name string) error {
	dir, _, err := o.fleetDir(ctx)
	if err != nil {
		return err
	}
	if err := fleetrun.OpenRegistry(dir).Remove(name); err != nil {
		return err
	}
	if !o.g.json {
		fmt.Fprintf(o.stdio.Out, "worker %s's credentials are revoked\n", name)
		return nil
	}
	return writeJSON(o.stdio.Out, map[string]any{"removed": name})
}

func runWorkersList(ctx context.Context, o *workersOptions) error {
	url, credsPath, ca := o.connect, o.stdio.path(o.creds), ""
	if url == "" {
		dir, _, err := o.fleetDir(ctx)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, "url"))
		if err != nil {
			return fault.New(fault.Unavailable, "this project's fleet has not run here").WithHint("start it with sudocode serve, or name one with --connect and --creds")
		}
		url, credsPath = strings.TrimSpace(string(b)), filepath.Join(dir, "coordinator.creds")
		if ca, err = fleetrun.FleetCA(dir); err != nil {
			return err
		}
	}
	c, err := natsbus.ReadCreds(credsPath)
	if err != nil {
		return err
	}
	if ca != "" {
		c.CA = ca // serve's embedded server, whose authority is the fleet directory's (coordinator.creds holds the key alone)
	}
	nc, err := natsbus.Connect(ctx, url, c)
	if err != nil {
		return fault.Wrap(fault.Unavailable, err, "the fleet's NATS server does not answer (is serve running, with its fleet?)")
	}
	defer nc.Close()
	f, err := fleet.OpenWorker(ctx, nc, fleet.Options{}) // binds: the coordinator made the buckets
	if err != nil {
		return err
	}
	ws, err := f.Workers(ctx)
	if err != nil {
		return err
	}
	if o.g.json {
		if ws == nil {
			ws = []fleet.Presence{}
		}
		return writeJSON(o.stdio.Out, ws)
	}
	if len(ws) == 0 {
		fmt.Fprintln(o.stdio.Out, "no worker is connected")
		return nil
	}
	tw := tabwriter.NewWriter(o.stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHOST\tAGENTS\tLABELS\tRUNNING\tTASKS\tSEEN")
	for _, w := range ws {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s ago\n", w.ID, w.Host, strings.Join(w.CLIs, ","), strings.Join(w.Labels, ","),
			w.Running, w.Slots, strings.Join(w.Tasks, ","), time.Since(w.Heartbeat).Round(time.Second))
	}
	return tw.Flush()
}
