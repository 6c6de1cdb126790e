package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/tracker"
	"github.com/sudocode/sudocode/internal/tracker/store"
)

type initOptions struct {
	trackerCmd
	prefix string
}

func newInitCmd(tc trackerCmd) *cobra.Command {
	o := &initOptions{trackerCmd: tc}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create .sudocode/ in the working directory (SUDOCODE_WORKING_DIR)",
		Long: `Create .sudocode/ in the working directory (or SUDOCODE_WORKING_DIR): config.json,
a specs/ folder for spec bodies, a .gitignore for the cache and a .gitattributes that
routes the JSONL files through sudocode's merge driver (registered in .git/config when
inside a git repository). The records go in records/issues/, records/specs/ and
records/feedback/, one JSONL file per shard of ids, each created with its first record.
Commit .sudocode/ with your code.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runInit(o) },
	}
	cmd.Flags().StringVar(&o.prefix, "prefix", tracker.DefaultPrefix, "id prefix for issues and specs")
	return cmd
}

func runInit(o *initOptions) error {
	dir := o.stdio.Dir
	if wd := o.stdio.Getenv("SUDOCODE_WORKING_DIR"); wd != "" {
		dir = o.stdio.path(wd)
	}
	_, statErr := os.Stat(filepath.Join(dir, store.DirName, store.ConfigFile))
	res, err := store.Init(dir, o.prefix)
	if err != nil {
		return err
	}
	return o.print(res, func(w io.Writer) {
		if statErr == nil {
			fmt.Fprintf(w, "Already initialised: %s (prefix %s)\n", res.Path, res.Prefix)
			return
		}
		fmt.Fprintf(w, "Initialised %s (prefix %s)\n", res.Path, res.Prefix)
	})
}
