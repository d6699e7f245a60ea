package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/report"

	"github.com/spf13/cobra"
)

func newRulesCmd() *cobra.Command {
	var format string
	var pf policyFlags
	cmd := &cobra.Command{
		Use:   "rules [ID|NAME...]",
		Short: "List the rules (id, default severity, name, title), or explain the ones named",
		Long: `Without arguments, list the rules of the built-in pack and of --policy
directories. With rule ids or names, print each one's page: what it
catches, why, how to fix it (and what buildgate fix does), an example.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			pol, err := pf.compile(cmd.Context())
			if err != nil {
				return err
			}
			rules := pol.Rules()
			w := cmd.OutOrStdout()
			if len(args) > 0 {
				return explainRules(w, rules, args, format)
			}
			switch format {
			case "json":
				return writeRulesJSON(w, rules)
			case "text":
				// A user rule's title is the pull request's text (its
				// id and name are words: the engine refuses others).
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSEVERITY\tNAME\tTITLE")
				for _, r := range rules {
					fmt.Fprintln(tw, report.SafeLine(fmt.Sprintf("%s\t%s\t%s\t%s", r.ID, r.Severity, r.Name, oneLine(r.Title)), false))
				}
				return tw.Flush()
			}
			return usageErr("--format %q: want text or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json (with descriptions)")
	pf.register(cmd.Flags())
	return cmd
}

// explainRules prints the pages of the rules named (by id or name, any
// case), in the order given.
func explainRules(w io.Writer, rules []finding.Rule, args []string, format string) error {
	var picked []finding.Rule
	for _, a := range args {
		found := false
		for _, r := range rules {
			if strings.EqualFold(a, r.ID) || strings.EqualFold(a, r.Name) {
				picked, found = append(picked, r), true
				break
			}
		}
		if !found {
			return usageErr("%q: not a rule id or name (buildgate rules lists them)", a)
		}
	}
	switch format {
	case "json":
		return writeRulesJSON(w, picked)
	case "text":
		for i, r := range picked {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			// A user rule's page is a file of the pull request.
			if _, err := io.WriteString(w, report.SafeText(report.RuleText(r))); err != nil {
				return err
			}
		}
		return nil
	}
	return usageErr("--format %q: want text or json", format)
}

// writeRulesJSON writes rules as JSON that no CI runner reads a command
// in (report.RunnerSafe: a page or title may hold "##[").
func writeRulesJSON(w io.Writer, rules []finding.Rule) error {
	rs := report.NewRunnerSafe(w, report.JSONHash)
	enc := json.NewEncoder(rs)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rules); err != nil {
		return err
	}
	return rs.Flush()
}

// oneLine is s with its white space runs, line breaks included, one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
