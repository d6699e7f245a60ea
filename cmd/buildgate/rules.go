package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newRulesCmd() *cobra.Command {
	var format string
	var pf policyFlags
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules: id, default severity, name and title (built-in and --policy)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eng, err := pf.engine(cmd.Context())
			if err != nil {
				return err
			}
			rules := eng.Rules()
			w := cmd.OutOrStdout()
			switch format {
			case "json":
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(rules)
			case "text":
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSEVERITY\tNAME\tTITLE")
				for _, r := range rules {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Name, r.Title)
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
