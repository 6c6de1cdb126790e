package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sudocode/sudocode/internal/rulesets"
)

// contentFlags are the fields put and create take.
type contentFlags struct {
	description, file    string
	tags, globs, targets []string
	always               bool
	// Which of the flags were given: put changes only those.
	setTags, setGlobs, setTargets, setAlways bool
}

func (c *contentFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&c.description, "description", "d", "", "one-line description")
	cmd.Flags().StringVarP(&c.file, "file", "f", "", "read the markdown from `FILE` ('-' for standard input)")
	cmd.Flags().StringSliceVarP(&c.tags, "tags", "t", nil, "comma-separated tags; replaces the current ones (--tags= clears them)")
	cmd.Flags().StringArrayVar(&c.globs, "glob", nil, "a `GLOB` of the paths the ruleset applies to, e.g. 'pkg/api/**' (repeat for more; --glob= clears them; none: everywhere)")
	cmd.Flags().BoolVar(&c.always, "always", false, "apply the ruleset without being asked (--always=false clears it)")
	cmd.Flags().StringSliceVar(&c.targets, "targets", nil, "comma-separated agents whose files it is exported to: "+strings.Join(rulesets.Agents, ",")+" (--targets= clears them; none: all)")
}

// given notes which of the flags the command line gave.
func (c *contentFlags) given(cmd *cobra.Command) {
	f := cmd.Flags()
	c.setTags, c.setGlobs, c.setTargets, c.setAlways = f.Changed("tags"), f.Changed("glob"), f.Changed("targets"), f.Changed("always")
}

// scope sets the scope fields given on the command line in p.
func (c *contentFlags) scope(p *rulesets.Patch) {
	if p.SetGlobs = c.setGlobs; p.SetGlobs {
		p.Globs = slices.DeleteFunc(slices.Clone(c.globs), func(g string) bool { return g == "" })
	}
	if p.SetTargets = c.setTargets; p.SetTargets {
		p.Targets = append([]string{}, c.targets...)
	}
	if c.setAlways {
		p.Always = &c.always
	}
}

// markdown is the text of --file: standard input for "-", else the file,
// taken from the working directory.
func (c *contentFlags) markdown(stdio IO) (string, error) {
	switch c.file {
	case "":
		return "", nil
	case "-":
		b, err := io.ReadAll(io.LimitReader(stdio.In, rulesets.MaxMarkdownLen+1))
		return string(b), err
	default:
		b, err := stdio.readFile(c.file)
		return string(b), err
	}
}

// rulesetsPutOptions are the arguments and flags of put and create.
type rulesetsPutOptions struct {
	*rulesetsOptions
	name    string
	content contentFlags
}

// withContent completes cmd, put or create, to run run.
func withContent(ro *rulesetsOptions, cmd *cobra.Command, run func(context.Context, *rulesetsPutOptions) error) *cobra.Command {
	o := &rulesetsPutOptions{rulesetsOptions: ro}
	cmd.Args = exactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.name = args[0]
		o.content.given(cmd)
		return run(cmd.Context(), o)
	}
	o.content.register(cmd)
	return cmd
}

func newRulesetsPutCmd(ro *rulesetsOptions) *cobra.Command {
	return withContent(ro, &cobra.Command{
		Use:   "put NAME",
		Short: "Create a ruleset, or change only the given fields of an existing one (upsert)",
		Example: `  sudocode rulesets put python_style_guide -d "Python style" -t python,style -f python.md
  sudocode rulesets put python_style_guide -d "Python style, PEP 8"`,
	}, runRulesetsPut)
}

func runRulesetsPut(ctx context.Context, o *rulesetsPutOptions) error {
	c := &o.content
	md, err := c.markdown(o.stdio)
	if err != nil {
		return usageError{err}
	}
	p := rulesets.Patch{Name: o.name, SetTags: c.setTags, Tags: c.tags}
	if p.SetTags && p.Tags == nil {
		p.Tags = []string{}
	}
	if c.description != "" {
		p.Description = &c.description
	}
	if md != "" {
		p.Markdown = &md
	}
	c.scope(&p)
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		created, err := lib.Upsert(ctx, p)
		if err != nil {
			return err
		}
		return o.print(map[string]any{"name": p.Name, "created": created}, fmt.Sprintf("Successfully upserted ruleset '%s'\n", p.Name))
	})
}

func newRulesetsCreateCmd(ro *rulesetsOptions) *cobra.Command {
	return withContent(ro, &cobra.Command{
		Use:   "create NAME",
		Short: "Create a ruleset; fails if the name is taken",
	}, runRulesetsCreate)
}

func runRulesetsCreate(ctx context.Context, o *rulesetsPutOptions) error {
	c := &o.content
	md, err := c.markdown(o.stdio)
	if err != nil {
		return usageError{err}
	}
	r := rulesets.Ruleset{Name: o.name, Description: c.description, Markdown: md, Tags: c.tags,
		Scope: rulesets.Scope{Globs: c.globs, Always: c.always, Targets: c.targets}}
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		if err := lib.Create(ctx, r); err != nil {
			return err
		}
		return o.print(map[string]any{"name": r.Name, "created": true}, fmt.Sprintf("Successfully created ruleset '%s'\n", r.Name))
	})
}

// rulesetsNameOptions are the argument of a command on one ruleset.
type rulesetsNameOptions struct {
	*rulesetsOptions
	name string
}

func newRulesetsDeleteCmd(ro *rulesetsOptions) *cobra.Command {
	o := &rulesetsNameOptions{rulesetsOptions: ro}
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a ruleset",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.name = args[0]
			return runRulesetsDelete(cmd.Context(), o)
		},
	}
}

func runRulesetsDelete(ctx context.Context, o *rulesetsNameOptions) error {
	return o.withLibrary(ctx, o.name, func(lib rulesets.Library) error {
		if err := lib.Delete(ctx, o.name); err != nil {
			return err
		}
		return o.print(map[string]any{"name": o.name, "deleted": true}, fmt.Sprintf("Successfully deleted ruleset '%s'\n", o.name))
	})
}
