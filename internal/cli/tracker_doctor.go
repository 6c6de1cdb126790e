package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker/store"
)

type doctorOptions struct {
	trackerCmd
	fix bool
}

// doctorReport is what doctor prints (--json: these fields).
type doctorReport struct {
	// MergeDriver: registered, missing, other (the name runs another
	// command, left alone) or no-git.
	MergeDriver string `json:"merge_driver"`
	// Conflicts are the record files that hold git's conflict markers
	// (after --fix: those it could not repair).
	Conflicts []string       `json:"conflicts"`
	Repaired  []store.Repair `json:"repaired"`
	Healthy   bool           `json:"healthy"`
}

func newDoctorCmd(tc trackerCmd) *cobra.Command {
	o := &doctorOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "doctor [--fix]",
		Short: "Check the tracker in this clone: git's merge driver, leftover merge conflicts",
		Long: `Check what a clone or a merge can leave wrong with the tracker:
  - git's merge driver for the record files (.git/config is not cloned, so a clone's git
    merges them as text until it is registered);
  - record files that hold git's conflict markers (a merge made without the driver).
With --fix, register the driver and repair each conflicted file with the tracker's own
three-way merge: from the three versions git keeps while the conflict is unresolved (the
result is then staged), else from the versions a merge commit that recorded the markers
joined, else from the sides between the markers (with git's diff3 style,
which shows the base, exactly as the driver; without it, where the sides' values of a
field differ, the later edit wins). No line is deleted and no record lost. Every other command does the same
repair by itself when it meets such a file; doctor does it on its own and reports.
Exits 4 when a problem remains.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.fix, "fix", false, "register the merge driver and repair conflicted record files")
	return cmd
}

func runDoctor(ctx context.Context, o *doctorOptions) error {
	dir, err := o.find()
	if err != nil {
		return err
	}
	root := filepath.Dir(dir)
	rep := doctorReport{Repaired: []store.Repair{}}
	if o.fix {
		if msg := store.EnsureMergeDriver(ctx, root); msg != "" {
			fmt.Fprintln(o.stdio.Err, "sudocode: "+msg)
		}
		if rep.Repaired, err = repairAll(ctx, dir, o.stdio.actor()); err != nil {
			return err
		}
	}
	rep.MergeDriver = store.MergeDriverState(ctx, root)
	if rep.Conflicts, err = store.Conflicts(dir); err != nil {
		return err
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []string{}
	}
	rep.Healthy = len(rep.Conflicts) == 0 && rep.MergeDriver != "missing"
	if err := o.print(rep, func(w io.Writer) { doctorText(w, rep, o.fix) }); err != nil {
		return err
	}
	if !rep.Healthy {
		return silentError{exitConflict}
	}
	return nil
}

// repairAll repairs the conflicted record files without the notices a
// command prints: doctor reports them itself.
func repairAll(ctx context.Context, dir, actor string) ([]store.Repair, error) {
	r, err := store.Open(ctx, dir, actor)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.Notify = func(string) {}
	done, err := r.RepairConflicts(ctx)
	if done == nil {
		done = []store.Repair{}
	}
	return done, err
}

func doctorText(w io.Writer, rep doctorReport, fixed bool) {
	switch rep.MergeDriver {
	case "registered":
		fmt.Fprintln(w, "merge driver\tregistered")
	case "missing":
		fmt.Fprintln(w, "merge driver\tmissing: git merges the record files as text (run sudocode doctor --fix)")
	case "other":
		fmt.Fprintln(w, "merge driver\tmerge.sudocode.driver runs another command; left as it is")
	default:
		fmt.Fprintln(w, "merge driver\tnot in a git repository")
	}
	for _, r := range rep.Repaired {
		how := map[string]string{"index": "from git's three versions", "history": "from the versions its merge commit joined"}[r.From]
		if how == "" {
			how = "from the conflict markers"
		}
		if r.Staged {
			how += ", staged"
		}
		fmt.Fprintf(w, "repaired\t%s (%s)\n", r.File, how)
		for _, rn := range r.Rename {
			fmt.Fprintf(w, "renamed\t%s to %s (the id collided)\n", rn.Old, rn.New)
		}
	}
	for _, f := range rep.Conflicts {
		if fixed {
			fmt.Fprintf(w, "conflict\t%s: its markers do not make whole blocks; restore them or correct the lines by hand\n", f)
		} else {
			fmt.Fprintf(w, "conflict\t%s (run sudocode doctor --fix)\n", f)
		}
	}
	if rep.Healthy {
		fmt.Fprintln(w, "ok")
	}
}
