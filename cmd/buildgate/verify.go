package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/report"
	"github.com/spf13/cobra"
)

func newVerifyCmd() *cobra.Command {
	var pf policyFlags
	var coverage, verbose bool
	var threshold float64
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "verify [--policy DIR]... [--coverage] [--threshold N]",
		Short: "Run the Rego tests (_test.rego) of the built-in pack and of your policies",
		Long: `Verify runs every test_ rule of the built-in pack and of each --policy
directory with OPA's test runner, under the same compiler, sandbox and
builtins as lint. With --coverage it prints line coverage per policy file,
for the built-in pack, for your policies and in total (test files are not
counted). --threshold applies to your policies' coverage (to the built-in
pack's when no --policy is given): the pack's lines are not yours to test.

Exit status: 0 when every test passes (and coverage reaches --threshold),
1 when a test fails or coverage is under the threshold, 2 when a policy
does not compile.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, closeAll, err := pf.options(cmd.Context())
			if err != nil {
				return err
			}
			defer closeAll()
			results, cov, err := lint.TestPolicies(cmd.Context(), o, coverage || threshold > 0, timeout)
			if err != nil {
				return policyErr(err)
			}
			w := cmd.OutOrStdout()
			failed := 0
			for _, r := range results {
				if r.Fail || r.Error != nil {
					failed++
					// A test's name, file, error and print output are
					// the policies' (the pull request's) text.
					fmt.Fprintln(w, safeLines(r.String()))
					if r.Output != "" {
						fmt.Fprintf(w, "  print output:\n    %s\n", strings.ReplaceAll(safeLines(strings.TrimSpace(r.Output)), "\n", "\n    "))
					}
				} else if verbose {
					fmt.Fprintln(w, safeLines(r.String()))
				}
			}
			if len(results) == 0 {
				return &exitError{code: exitFindings, msg: "no tests found (test rules are named test_...)"}
			}
			fmt.Fprintf(w, "%d/%d tests passed\n", len(results)-failed, len(results))
			if cov != nil {
				files := make([]string, 0, len(cov.Files))
				for f := range cov.Files {
					files = append(files, f)
				}
				sort.Strings(files)
				for _, f := range files {
					fc := cov.Files[f]
					fmt.Fprintf(w, "%6.1f%%  %s", fc.Percent(), report.SafePath(f))
					if len(fc.NotCoveredRanges) > 0 {
						var rs []string
						seen := map[[2]int]bool{}
						for _, r := range fc.NotCoveredRanges {
							if seen[r] {
								continue
							}
							seen[r] = true
							if r[0] == r[1] {
								rs = append(rs, fmt.Sprint(r[0]))
							} else {
								rs = append(rs, fmt.Sprintf("%d-%d", r[0], r[1]))
							}
						}
						fmt.Fprintf(w, "  (not covered: lines %s)", strings.Join(rs, ", "))
					}
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%6.1f%%  built-in pack (%d of %d lines)\n", cov.Builtin.Percent(), cov.Builtin.Covered, cov.Builtin.Total)
				if cov.User.Total > 0 {
					fmt.Fprintf(w, "%6.1f%%  your policies (%d of %d lines)\n", cov.User.Percent(), cov.User.Covered, cov.User.Total)
				}
				fmt.Fprintf(w, "%6.1f%%  total (%d of %d lines)\n", cov.Percent(), cov.Covered, cov.Total)
			}
			if failed > 0 {
				return &exitError{code: exitFindings, msg: fmt.Sprintf("%d of %d tests failed", failed, len(results))}
			}
			if cov != nil && threshold > 0 {
				// The threshold is the user's policies' to meet; without
				// any, the built-in pack's.
				got, whose := cov.User, "your policies'"
				if got.Total == 0 {
					got, whose = cov.Builtin, "the built-in pack's"
				}
				if got.Percent() < threshold {
					return &exitError{code: exitFindings, msg: fmt.Sprintf("%s coverage %.1f%% is under --threshold %.1f%%", whose, got.Percent(), threshold)}
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	pf.register(fl)
	fl.BoolVar(&coverage, "coverage", false, "print line coverage per policy file and in total")
	fl.Float64Var(&threshold, "threshold", 0, "exit 1 when your policies' line coverage (the built-in pack's when no --policy is given) is under this percentage")
	fl.BoolVarP(&verbose, "verbose", "v", false, "list passing tests too")
	fl.DurationVar(&timeout, "timeout", time.Minute, "time limit per test")
	return cmd
}
