package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fix"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/report"
	"github.com/spf13/cobra"
)

type fixFlags struct {
	lint   lintFlags
	diff   bool
	unsafe bool
	rules  []string
}

func newFixCmd() *cobra.Command {
	var f fixFlags
	cmd := &cobra.Command{
		Use:   "fix [PATH...]",
		Short: "Apply the fixes of the findings (or show them with --diff)",
		Long: `Fix lints as lint does (same discovery, configuration, suppressions and
root) and applies the fixes of the findings: byte-range edits of the files
as they are, never a re-printed file. A suppressed finding is never fixed.
The files are written as one transaction through the root: every new text
to a temporary file first, then, when all are written and each file is
still as it was read (size, time, checksum), renamed over them; else none
is changed. Mode, line endings and byte order mark are kept; a symbolic
link is never followed; a read-only file is not rewritten. Fixing twice
changes nothing the second time.

Safe and unsafe fixes, as in ruff: a fix that changes what the build does
beyond its finding (a switch that also gates a step naming no part of the
source build, a pin that would admit versions it excludes now) is listed
and applied only with --unsafe-fixes.

The pin rules: BG201 adds the pin line to the requirements file (creating
it when it is missing), BG202 puts a specifier that meets the minimum in
place of one that admits less. The source-build rules (BG101-BG104):
whole stages, ARGs, mounts and COPY --from of Dockerfiles; blocks, list
elements and object items of bake files; list words, case branches,
command lines and ifs of scripts. The fixed file is parsed again and must
not refer to anything removed, or that file is left as it was; a finding
that is not fixed is listed with the reason (docs/fix.md).

With --diff nothing is written: the changes are printed as a unified diff
(for patch -p1) and the exit status is 1 when there are any. Otherwise the
findings left and a summary ("Found N findings (M fixed, K remaining)")
are printed on stdout.

Exit status: 0 when nothing is left to fix, 1 when findings remain that
have no fix (all are listed; as with lint, only those of --fail-on's
severity or above count) or, with --diff, when there are changes; 2 for
a usage, configuration or policy error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.lint.configFromRevSet = cmd.Flags().Changed("config-from-rev")
			return runFix(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.diff, "diff", false, "print the changes as a unified diff and write nothing; exit 1 when there are changes")
	fl.BoolVar(&f.unsafe, "unsafe-fixes", false, "also apply the fixes that change what the build does beyond the finding (a step that names no part of the source build stops running, a pin that would admit versions it excludes now); without it they are listed")
	fl.StringVar(&f.lint.failOn, "fail-on", "error", "lowest severity of a finding left without a fix that makes the exit status 1: error, warning, note or never")
	fl.StringArrayVar(&f.rules, "rule", nil, "fix only the findings of this rule (id or name), repeatable")
	fl.StringVar(&f.lint.config, "config", "", "configuration file (default: .buildgate.yaml at the root, else the built-in default)")
	fl.StringVar(&f.lint.root, "root", "", "repository root (default: the git top level, else the current directory)")
	f.lint.policy.register(fl)
	fl.StringVar(&f.lint.configFromRev, "config-from-rev", "", "read .buildgate.yaml (or --config), --data and --policy directories as they are at the git revision REV (the pull request's base), not from the working tree: the fixes applied are then those of the base's policies")
	fl.DurationVar(&f.lint.timeout, "timeout", 5*time.Minute, "time limit for each lint of the run")
	fl.BoolVar(&f.lint.noInline, "no-inline-ignores", false, "ignore buildgate:ignore comments (config ignores still apply)")
	fl.Int64Var(&f.lint.maxSize, "max-file-size", lint.DefaultMaxFileSize, "files larger than this many bytes are not read")
	fl.Int64Var(&f.lint.maxMemoryMB, "max-memory", 1024, "megabytes of memory the run may use; past it the run stops with exit 2 (0: no bound)")
	return cmd
}

// lintOnce runs lint as the lint command would, without reports, and
// with fix, plans the fixes of the findings of the rules chosen (all when
// none is); stderr hears the notes about the run's inputs (nil: none, for
// the second run).
func lintOnce(ctx context.Context, f lintFlags, args []string, stderr io.Writer, dog *watchdog, rules []string, unsafe, ownOnly bool) (string, *lint.Outcome, map[string]bool, error) {
	run, err := prepare(ctx, f, args, stderr, dog)
	if err != nil {
		return "", nil, nil, err
	}
	pol, err := run.opts.PoliciesReady()
	if err != nil {
		return "", nil, nil, err
	}
	want := map[string]bool{}
	for _, r := range rules {
		found := false
		for _, rule := range pol.Rules() {
			if r == rule.ID || r == rule.Name {
				want[rule.ID], found = true, true
			}
		}
		if !found {
			return "", nil, nil, usageErr("--rule %q: not a rule id or name (see buildgate rules)", r)
		}
	}
	var pkgs []string
	if run.opts.Config != nil {
		for _, m := range run.opts.Config.Migrations {
			pkgs = append(pkgs, m.Package)
		}
	}
	run.opts.Fix = &lint.FixOptions{Rules: want, Unsafe: unsafe, OwnOnly: ownOnly, Packages: pkgs}
	dog.set("linting")
	out, err := lint.Run(ctx, run.opts)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return "", nil, nil, err
		}
		return "", nil, nil, &exitError{code: exitUsage, msg: run.userArgs(err).Error()}
	}
	return run.root, out, want, nil
}

func runFix(ctx context.Context, stdout, stderr io.Writer, f fixFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	failRank, ok := failOnRank(f.lint.failOn)
	if !ok {
		return usageErr("--fail-on %q: want error, warning, note or never", f.lint.failOn)
	}
	if stdin, err := stdinArgs(args); err != nil || stdin {
		return usageErr("fix writes the files of the repository; it does not read standard input (`buildgate lint -` does)")
	}
	// --timeout covers the lint and the planning; files are written after
	// it (never cut half way), then the lint that says what is left has a
	// time limit of its own.
	runCtx, cancel := context.WithTimeout(ctx, f.lint.timeout)
	defer cancel()
	maxMemory = f.lint.maxMemoryMB << 20
	dog := startWatchdog(stderr, f.lint.timeout)
	defer dog.stop()
	root, out, want, err := lintOnce(runCtx, f.lint, args, stderr, dog, f.rules, f.unsafe, false)
	if err != nil {
		return err
	}
	dog.stop()
	found := countFound(out.Findings, want)
	// Why findings were not fixed, by whyKey, in file order: findings keep
	// their order across the re-lint (a fix moves lines, never reorders
	// them), so reasons are taken in the same order.
	why := map[string][]string{}
	files := map[string]bool{}
	applied, hidden := 0, 0
	// As ruff does, fix runs again on what it fixed until nothing changes
	// (a pin added can show an image that installs none of it): a second
	// `buildgate fix` then changes nothing. At most maxFixPasses.
	var after *lint.Outcome
	for pass := 1; ; pass++ {
		if out.FixError != nil {
			if pass == 1 && runCtx.Err() != nil {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("planning the fixes did not finish within --timeout %s", f.lint.timeout)}
			}
			return &exitError{code: exitUsage, msg: out.FixError.Error()}
		}
		passWhy := map[string][]string{}
		var written []*lint.FixFile
		var n, h int
		written, n, h, err = applyPlan(stdout, stderr, f.diff, root, out, passWhy)
		if err != nil || f.diff {
			return err
		}
		// The first pass's reasons stand (an unsafe fix stays unsafe);
		// later passes add reasons for findings it did not see.
		for k, v := range passWhy {
			if _, ok := why[k]; !ok {
				why[k] = v
			}
		}
		if pass == 1 {
			hidden = h
		}
		applied += n
		for _, ff := range written {
			files[ff.Path] = true
		}
		if len(written) == 0 && pass > 1 {
			after = out // the lint of the files as they are now
			break
		}
		// What is left: lint again (a fix must not leave the files
		// worse), planning once more unless this was the last pass.
		afterCtx, cancelAfter := context.WithTimeout(ctx, f.lint.timeout)
		defer cancelAfter()
		dogAfter := startWatchdog(stderr, f.lint.timeout)
		defer dogAfter.stop()
		dogAfter.set("linting the fixed files")
		last := len(written) == 0 || pass == maxFixPasses
		// Later passes make the findings' own fixes only (a pin the
		// first pass's pin calls for), never a removal: a removal the
		// first pass kept as unsafe or declined stays so.
		_, next, _, err := lintOnce(afterCtx, f.lint, args, nil, dogAfter, f.rules, f.unsafe, true)
		dogAfter.stop()
		if err != nil {
			return err
		}
		if last {
			after = next
			break
		}
		out = next
	}
	changed := len(files)
	left := after.Findings
	if len(want) > 0 {
		left = left[:0:0]
		for _, fd := range after.Findings {
			if want[fd.Rule] {
				left = append(left, fd)
			}
		}
	}
	var b strings.Builder
	summary := fixSummary(found, applied, len(left), changed, hidden)
	if len(left) == 0 {
		_, err := io.WriteString(stdout, summary)
		return err
	}
	failing := false
	for _, fd := range left {
		failing = failing || finding.SeverityRank(fd.Severity) >= failRank
		reason := "no fix for it (yet)"
		if rs := why[whyKey(fd)]; len(rs) > 0 {
			reason, why[whyKey(fd)] = rs[0], rs[1:]
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s] (not fixed: %s)\n", report.Where(fd), fd.Severity, report.Visible(fd.Message), report.Visible(fd.Rule+" "+fd.Name), report.Visible(reason))
	}
	b.WriteString(summary)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if !failing {
		return nil
	}
	return &exitError{code: exitFindings}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// whyKey names findings across the re-lint after fixing, when their
// lines may have moved: file, rule and message (findings that share them
// are told apart by their order).
func whyKey(fd finding.Finding) string {
	return fd.Path + "\x00" + fd.Rule + "\x00" + fd.Message
}

// countFound counts the findings of the rules chosen (all when none is).
func countFound(fds []finding.Finding, want map[string]bool) int {
	if len(want) == 0 {
		return len(fds)
	}
	n := 0
	for _, fd := range fds {
		if want[fd.Rule] {
			n++
		}
	}
	return n
}

// fixSummary is ruff's line: "Found N findings (M fixed, K remaining)",
// with the files changed and the fixes only --unsafe-fixes applies.
func fixSummary(found, fixed, left, files, hidden int) string {
	head := "Found " + plural2(found, "finding")
	// A finding whose premise a fix removed (a missing file no longer
	// needed once the source build is gone) is gone too: fixed.
	fixed = max(fixed, found-left)
	if more := fixed + left - found; more > 0 {
		// The fixed files showed findings the first lint did not (a pin
		// added makes an image that installs none of it visible).
		head += fmt.Sprintf(" and %d more while fixing", more)
	}
	s := fmt.Sprintf("%s (%d fixed, %d remaining); %s changed", head, fixed, left, plural2(files, "file"))
	if hidden > 0 {
		s += fmt.Sprintf("; %s more with --unsafe-fixes", plural2(hidden, "fix"))
	}
	if left == 0 {
		s += "; nothing left to fix"
	}
	return s + ".\n"
}

func plural2(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "x") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// writeAll writes the fixed files as one transaction (docs/fix.md): each
// new text goes to a temporary file first; a file changed since it was
// read is not written, and neither is any file whose removal was planned
// together with it (a removal another file's removal made possible); then
// all are renamed, or, if one cannot be, none stays changed. It returns
// how many files were written.
func writeAll(root string, writes []*lint.FixFile, why map[string][]string, stderr io.Writer) ([]*lint.FixFile, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	txn, err := safefile.NewTxn(root)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	defer func() { _ = txn.Close() }()
	for _, ff := range writes {
		txn.Add(ff.Path, ff.New, ff.Old, ff.Stamp)
	}
	if err := txn.Prepare(); err != nil {
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("not written: %s; no file was changed", report.Visible(err.Error()))}
	}
	dropped := map[string]bool{}
	changedNow := txn.Changed()
	for _, p := range changedNow {
		dropped[p] = true
		// A removal is planned with every other one (fix.Resolve): when
		// one file changed under it, the others may rely on what it was.
		for _, ff := range writes {
			if ff.Path == p && len(ff.Plan.Gone) > 0 {
				for _, other := range writes {
					if len(other.Plan.Gone) > 0 {
						dropped[other.Path] = true
					}
				}
			}
		}
	}
	var done []*lint.FixFile
	for _, ff := range writes {
		if !dropped[ff.Path] {
			done = append(done, ff)
			continue
		}
		txn.Drop(ff.Path)
		reason := "the file changed since buildgate read it; run buildgate fix again"
		if !contains(changedNow, ff.Path) {
			reason = "a file whose removal it was planned with changed since buildgate read it; run buildgate fix again"
		}
		fmt.Fprintf(stderr, "buildgate: %s: not fixed: %s\n", report.SafePath(ff.Path), reason)
		for _, fd := range ff.Fixables {
			why[whyKey(fd)] = append([]string{reason}, why[whyKey(fd)]...)
		}
	}
	if err := txn.Commit(); err != nil {
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("not written: %s", report.Visible(err.Error()))}
	}
	for _, ff := range writes {
		if !dropped[ff.Path] {
			fmt.Fprintf(stderr, "buildgate: fixed %s\n", report.SafePath(ff.Path))
		}
	}
	return done, nil
}

// declined reports whether the plan of a file declines a finding.
func declined(ff *lint.FixFile, fd finding.Finding) bool {
	for _, d := range ff.Plan.Declined {
		if d.Finding.Pos == fd.Pos && d.Finding.Rule == fd.Rule {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxFixPasses bounds how many times fix plans and writes in one run.
const maxFixPasses = 4

// applyPlan writes (or, with diff, prints) one plan of the files: the
// files written, how many findings their edits answer, and how many
// fixes only --unsafe-fixes makes; why collects the reasons of the
// findings not fixed.
func applyPlan(stdout, stderr io.Writer, diff bool, root string, out *lint.Outcome, why map[string][]string) ([]*lint.FixFile, int, int, error) {
	hidden, changed := 0, 0
	var writes []*lint.FixFile
	for _, ff := range out.Fixes {
		p := ff.Path
		if ff.Refused != "" {
			// Nothing in the file changes: every finding of it stays, for
			// this reason.
			fmt.Fprintf(stderr, "buildgate: %s: not fixed: %s\n", report.SafePath(p), report.Visible(ff.Refused))
			for _, fd := range ff.Fixables {
				why[whyKey(fd)] = append(why[whyKey(fd)], ff.Refused)
			}
			continue
		}
		for _, d := range ff.Plan.Declined {
			why[whyKey(d.Finding)] = append(why[whyKey(d.Finding)], d.Reason)
			if d.Unsafe {
				hidden++
			}
		}
		if string(ff.New) == string(ff.Old) {
			continue
		}
		changed++
		for _, n := range ff.Plan.Notes {
			// On stderr: --diff's stdout is a patch.
			fmt.Fprintf(stderr, "buildgate: %s: note: %s\n", report.SafePath(p), report.Visible(n))
		}
		if diff {
			if _, err := io.WriteString(stdout, report.SafeDiff(fix.Diff(p, ff.Old, ff.New))); err != nil {
				return nil, 0, 0, err
			}
			continue
		}
		writes = append(writes, ff)
	}
	if diff {
		if changed > 0 {
			return nil, 0, 0, &exitError{code: exitFindings}
		}
		return nil, 0, 0, nil
	}
	written, err := writeAll(root, writes, why, stderr)
	if err != nil {
		return nil, 0, 0, err
	}
	applied := 0
	for _, ff := range written {
		applied += len(ff.Plan.Fixed)
		for _, fd := range ff.Fixables {
			if fd.Fix != nil && !declined(ff, fd) {
				applied++
			}
		}
	}
	return written, applied, hidden, nil
}
