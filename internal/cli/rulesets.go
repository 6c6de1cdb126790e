package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
)

// rulesetsOptions are shared by the "sudocode rulesets" commands.
type rulesetsOptions struct {
	store storeFlags
	g     *globalOptions
}

func newRulesetsCmd(g *globalOptions, stdio IO) *cobra.Command {
	opts := &rulesetsOptions{g: g}
	cmd := &cobra.Command{
		Use:   "rulesets",
		Short: "Manage the ruleset library from the shell (same store and texts as the MCP server)",
		Args:  groupArgs,
		RunE:  groupHelp,
	}
	opts.store.register(cmd.PersistentFlags())
	cmd.AddCommand(
		newRulesetsListCmd(opts, stdio),
		newRulesetsSearchCmd(opts, stdio),
		newRulesetsGetCmd(opts, stdio),
		newRulesetsPutCmd(opts, stdio),
		newRulesetsCreateCmd(opts, stdio),
		newRulesetsDeleteCmd(opts, stdio),
		newRulesetsHistoryCmd(opts, stdio),
		newRulesetsImportCmd(opts, stdio),
		newRulesetsExportCmd(opts, stdio),
		newRulesetsResolveCmd(opts, stdio),
		newRulesetsDiffCmd(opts, stdio),
		newRulesetsRestoreCmd(opts, stdio),
	)
	return cmd
}

// withLibrary opens the store for one command. Its errors' hints name
// the CLI's commands where the library's name an MCP tool.
func (o *rulesetsOptions) withLibrary(cmd *cobra.Command, fn func(rulesets.Library) error) error {
	store, err := o.store.open(cmd.Context())
	if err != nil {
		return err
	}
	defer store.Close()
	return shellHint(fn(rulesets.Library{Store: store, Actor: actor()}), cmd.Flags().Args())
}

// shellHint is err with its hint in the shell's words when the hint names
// an MCP tool; args are the command's, the ruleset's name first.
func shellHint(err error, args []string) error {
	fe, ok := err.(*fault.Error)
	if !ok {
		return err
	}
	switch fe.Hint {
	case rulesets.HintList:
		return fe.WithHint("run `sudocode rulesets list` to see the available names")
	case rulesets.HintUpsert:
		name := "NAME"
		if len(args) > 0 {
			name = args[0]
		}
		return fe.WithHint("use `sudocode rulesets put " + name + "` to change an existing ruleset")
	}
	return err
}

// print writes v as indented JSON with --json, else text.
func (o *rulesetsOptions) print(w io.Writer, v any, text string) error {
	if !o.g.json {
		_, err := io.WriteString(w, text)
		return err
	}
	return writeJSON(w, v)
}

// forTerminal is a list's text as the MCP tool gives it, or on a terminal
// the same list as plain text: the tool's markdown bold around each name
// and Go's [a b] for the tags would show there as they are. Piped, the
// text stays the server's, for scripts that compare the two.
func forTerminal(w io.Writer, text string, items []rulesets.Summary) string {
	if !isTerminal(w) || len(items) == 0 {
		return text
	}
	header, _, _ := strings.Cut(text, "\n")
	var b strings.Builder
	b.WriteString(header + "\n\n")
	for _, it := range items {
		tags := "none"
		if len(it.Tags) > 0 {
			tags = strings.Join(it.Tags, ", ")
		}
		fmt.Fprintf(&b, "- %s: %s\n  Tags: %s\n  Created: %s, Modified: %s\n\n",
			it.Name, it.Description, tags, rulesets.Display(it.CreatedAt), rulesets.Display(it.LastModified))
	}
	return b.String()
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newRulesetsListCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List every ruleset (no markdown), oldest first",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				items, err := lib.List(cmd.Context())
				if err != nil {
					return err
				}
				return o.print(stdio.Out, items, forTerminal(stdio.Out, rulesets.FormatList(items), items)+"\n")
			})
		},
	}
}

func newRulesetsSearchCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "search PATTERN",
		Short: "List the rulesets whose names match a glob ('*' any sequence, '?' one character)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				items, err := lib.Search(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return o.print(stdio.Out, items, forTerminal(stdio.Out, rulesets.FormatSearch(args[0], items), items)+"\n")
			})
		},
	}
}

func newRulesetsGetCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	var version string
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Print a ruleset: front matter, then its markdown (--version N: as a past change left it)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := 0
			if version != "" {
				var err error
				if v, err = versionArg(version); err != nil {
					return err
				}
			}
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				if v > 0 {
					r, _, err := lib.Version(cmd.Context(), args[0], v)
					if err != nil {
						return err
					}
					return o.print(stdio.Out, map[string]any{"ruleset": r, "version": v}, rulesets.FormatVersion(r, v)+"\n")
				}
				r, err := lib.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return o.print(stdio.Out, r, rulesets.FormatDocument(r)+"\n")
			})
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "print version `N` (see history)")
	return cmd
}

// contentFlags are the fields put and create take.
type contentFlags struct {
	description, file    string
	tags, globs, targets []string
	always               bool
}

func (c *contentFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.description, "description", "d", "", "one-line description")
	cmd.Flags().StringVarP(&c.file, "file", "f", "", "read the markdown from `FILE` ('-' for standard input)")
	cmd.Flags().StringSliceVarP(&c.tags, "tags", "t", nil, "comma-separated tags; replaces the current ones (--tags= clears them)")
	cmd.Flags().StringArrayVar(&c.globs, "glob", nil, "a `GLOB` of the paths the ruleset applies to, e.g. 'pkg/api/**' (repeat for more; --glob= clears them; none: everywhere)")
	cmd.Flags().BoolVar(&c.always, "always", false, "apply the ruleset without being asked (--always=false clears it)")
	cmd.Flags().StringSliceVar(&c.targets, "targets", nil, "comma-separated agents whose files it is exported to: "+strings.Join(rulesets.Agents, ",")+" (--targets= clears them; none: all)")
}

// scope sets the scope fields given on the command line in p.
func (c *contentFlags) scope(cmd *cobra.Command, p *rulesets.Patch) {
	if p.SetGlobs = cmd.Flags().Changed("glob"); p.SetGlobs {
		p.Globs = slices.DeleteFunc(slices.Clone(c.globs), func(g string) bool { return g == "" })
	}
	if p.SetTargets = cmd.Flags().Changed("targets"); p.SetTargets {
		p.Targets = append([]string{}, c.targets...)
	}
	if cmd.Flags().Changed("always") {
		p.Always = &c.always
	}
}

func (c *contentFlags) markdown(in io.Reader) (string, error) {
	switch c.file {
	case "":
		return "", nil
	case "-":
		b, err := io.ReadAll(io.LimitReader(in, rulesets.MaxMarkdownLen+1))
		return string(b), err
	default:
		b, err := os.ReadFile(c.file)
		return string(b), err
	}
}

func newRulesetsPutCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	var c contentFlags
	cmd := &cobra.Command{
		Use:   "put NAME",
		Short: "Create a ruleset, or change only the given fields of an existing one (upsert)",
		Example: `  sudocode rulesets put python_style_guide -d "Python style" -t python,style -f python.md
  sudocode rulesets put python_style_guide -d "Python style, PEP 8"`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			md, err := c.markdown(stdio.In)
			if err != nil {
				return usageError{err}
			}
			p := rulesets.Patch{Name: args[0], SetTags: cmd.Flags().Changed("tags"), Tags: c.tags}
			if p.SetTags && p.Tags == nil {
				p.Tags = []string{}
			}
			if c.description != "" {
				p.Description = &c.description
			}
			if md != "" {
				p.Markdown = &md
			}
			c.scope(cmd, &p)
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				created, err := lib.Upsert(cmd.Context(), p)
				if err != nil {
					return err
				}
				return o.print(stdio.Out, map[string]any{"name": p.Name, "created": created},
					fmt.Sprintf("Successfully upserted ruleset '%s'\n", p.Name))
			})
		},
	}
	c.register(cmd)
	return cmd
}

func newRulesetsCreateCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	var c contentFlags
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a ruleset; fails if the name is taken",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			md, err := c.markdown(stdio.In)
			if err != nil {
				return usageError{err}
			}
			r := rulesets.Ruleset{Name: args[0], Description: c.description, Markdown: md, Tags: c.tags,
				Scope: rulesets.Scope{Globs: c.globs, Always: c.always, Targets: c.targets}}
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				if err := lib.Create(cmd.Context(), r); err != nil {
					return err
				}
				return o.print(stdio.Out, map[string]any{"name": r.Name, "created": true},
					fmt.Sprintf("Successfully created ruleset '%s'\n", r.Name))
			})
		},
	}
	c.register(cmd)
	return cmd
}

func newRulesetsDeleteCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a ruleset",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				if err := lib.Delete(cmd.Context(), args[0]); err != nil {
					return err
				}
				return o.print(stdio.Out, map[string]any{"name": args[0], "deleted": true},
					fmt.Sprintf("Successfully deleted ruleset '%s'\n", args[0]))
			})
		},
	}
}

func newRulesetsHistoryCmd(o *rulesetsOptions, stdio IO) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "Who changed a ruleset, when and which fields, newest first (also of a deleted one)",
		Long: `Print a ruleset's history: each create, update and delete, newest first, with
its author (SUDOCODE_ACTOR or $USER from the CLI; through MCP over HTTP with a
token file, the client's name) and the fields it set. The last 100 changes of
each name are kept, and a deleted ruleset's history stays.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > rulesets.MaxHistory {
				return usageError{fmt.Errorf("--limit must be between 1 and %d, got %d", rulesets.MaxHistory, limit)}
			}
			return o.withLibrary(cmd, func(lib rulesets.Library) error {
				changes, err := lib.History(cmd.Context(), args[0], limit)
				if err != nil {
					return err
				}
				return o.print(stdio.Out, map[string]any{"name": args[0], "changes": changes},
					rulesets.FormatHistory(args[0], changes)+"\n")
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", rulesets.MaxHistory, "show at most `N` changes")
	return cmd
}
