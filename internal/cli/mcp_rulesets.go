package cli

import (
	"context"
	"errors"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/mcprulesets"
	"github.com/sudocode/sudocode/internal/mcpx"
	"github.com/sudocode/sudocode/internal/rulesets"
)

type mcpRulesetsOptions struct {
	transport   transportFlags
	store       storeFlags
	importRoots []string
	stdio       IO
}

func newMCPRulesetsCmd(stdio IO) *cobra.Command {
	opts := &mcpRulesetsOptions{stdio: stdio}
	cmd := &cobra.Command{
		Use:   "rulesets",
		Short: "Serve the MCP Ruleset Server: a shared library of AI-editor rulesets",
		Long: `Serve the MCP Ruleset Server (tools upsert_ruleset, get_ruleset, delete_ruleset,
list_rulesets, search_rulesets; resource ruleset://{name}), and beyond the
specification import_rules, resolve_rules, get_ruleset_version,
diff_ruleset_versions, restore_ruleset and resource ruleset-history://{name}.

Storage: Valkey when VALKEY_HOST, VALKEY_PORT or VALKEY_URL (or a --valkey-* flag)
is set, with VALKEY_USERNAME and VALKEY_PASSWORD for credentials; otherwise an
embedded store under the user data dir (or --store DIR) that needs no setup.
A configured Valkey that cannot be reached stops the server with
"failed to connect to Valkey: …" and a non-zero exit.

import_rules reads files only under the directories given with --import-root
(repeatable; else SUDOCODE_IMPORT_ROOTS, separated by ':'; else the directory the
server runs in), and never through a link leading out of them: a client names
paths on this machine, and must not read any file it likes.

Transport: stdio by default; --http ADDR serves Streamable HTTP at /mcp.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCPRulesets(cmd.Context(), opts) },
	}
	opts.transport.register(cmd.Flags())
	opts.store.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&opts.importRoots, "import-root", nil,
		"a directory import_rules may read under (repeatable; default: $"+mcprulesets.EnvImportRoots+", else the working directory)")
	return cmd
}

func runMCPRulesets(ctx context.Context, opts *mcpRulesetsOptions) error {
	stdio := opts.stdio
	roots, err := opts.roots()
	if err != nil {
		return err
	}
	logger := mcpx.NewLogger(stdio.Err, opts.transport.level(stdio))
	store, err := opts.store.open(ctx, stdio)
	if err != nil {
		return err
	}
	defer store.Close()
	t, closeT, err := opts.transport.open(stdio, "rulesets", logger)
	if err != nil {
		return err
	}
	defer closeT()
	server := mcprulesets.NewWithOptions(rulesets.Library{Store: store, Actor: stdio.actor()},
		mcprulesets.Options{Logger: logger, ImportRoots: roots})
	return mcpx.Serve(ctx, server, t, logger)
}

// roots are the directories import_rules may read under: --import-root,
// else those of SUDOCODE_IMPORT_ROOTS, else the working directory, each
// taken from the working directory.
func (opts *mcpRulesetsOptions) roots() ([]string, error) {
	env := opts.stdio
	dirs := opts.importRoots
	for _, r := range dirs {
		if r == "" {
			return nil, usageError{errors.New("--import-root needs a directory")}
		}
	}
	if len(dirs) == 0 {
		dirs = slices.DeleteFunc(filepath.SplitList(env.Getenv(mcprulesets.EnvImportRoots)), func(d string) bool { return d == "" })
	}
	if len(dirs) == 0 {
		return []string{env.Dir}, nil
	}
	roots := make([]string, len(dirs))
	for i, d := range dirs {
		roots[i] = env.path(d)
	}
	return roots, nil
}
