package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fix"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/loader"
	"github.com/buildgate/buildgate/report"
	"github.com/spf13/cobra"
)

type fixFlags struct {
	lint  lintFlags
	diff  bool
	rules []string
}

func newFixCmd() *cobra.Command {
	var f fixFlags
	cmd := &cobra.Command{
		Use:   "fix [PATH...]",
		Short: "Apply the fixes of the findings (or show them with --diff)",
		Long: `Fix lints as lint does (same discovery, configuration, suppressions and
root) and applies the fixes of the findings: byte-range edits of the files
as they are, never a re-printed file. A suppressed finding is never fixed.
Each fixed file is written through the root to a temporary file renamed
over it, keeping its mode, line endings and byte order mark; a symbolic
link is never followed. Fixing twice changes nothing the second time.

The pin rules: BG201 adds the pin line to the requirements file (creating
it when it is missing), BG202 puts a specifier that meets the minimum in
place of one that admits less. The source-build rules (BG101-BG104):
whole stages, ARGs, mounts and COPY --from of Dockerfiles; blocks, list
elements and object items of bake files; list words, case branches,
command lines and ifs of scripts. The fixed file is parsed again and must
not refer to anything removed, or that file is left as it was; a finding
that is not fixed is listed with the reason (docs/fix.md).

With --diff nothing is written: the changes are printed as a unified diff
(for patch -p1) and the exit status is 1 when there are any.

Exit status: 0 when nothing is left to fix, 1 when findings remain that
have no fix (they are listed) or, with --diff, when there are changes; 2
for a usage, configuration or policy error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFix(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.diff, "diff", false, "print the changes as a unified diff and write nothing; exit 1 when there are changes")
	fl.StringArrayVar(&f.rules, "rule", nil, "fix only the findings of this rule (id or name), repeatable")
	fl.StringVar(&f.lint.config, "config", "", "configuration file (default: .buildgate.yaml at the root, else the built-in default)")
	fl.StringVar(&f.lint.root, "root", "", "repository root (default: the git top level, else the current directory)")
	f.lint.policy.register(fl)
	fl.DurationVar(&f.lint.timeout, "timeout", 5*time.Minute, "time limit for each lint of the run")
	fl.BoolVar(&f.lint.noInline, "no-inline-ignores", false, "ignore buildgate:ignore comments (config ignores still apply)")
	fl.Int64Var(&f.lint.maxSize, "max-file-size", loader.DefaultMaxFileSize, "files larger than this many bytes are not read")
	return cmd
}

// lintOnce runs lint as the lint command would, without reports.
func lintOnce(ctx context.Context, f lintFlags, args []string) (string, *lint.Outcome, []finding.Rule, error) {
	if f.maxSize <= 0 {
		return "", nil, nil, usageErr("--max-file-size %d: want a positive number of bytes", f.maxSize)
	}
	root, err := lintRoot(f.root)
	if err != nil {
		return "", nil, nil, usageErr("%v", err)
	}
	in := inputs(worktree{root: root})
	f.policy.from = in
	cfg, err := loadConfig(in, root, f.config)
	if err != nil {
		return "", nil, nil, usageErr("%v", err)
	}
	eng, err := f.policy.engine(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	if len(args) == 0 {
		args = []string{"."}
		if f.root != "" {
			args = []string{root}
		}
	}
	out, err := lint.Run(ctx, lint.Options{Root: root, Paths: args, Config: cfg, Engine: eng, MaxFileSize: f.maxSize,
		Timeout: f.timeout, LazyParse: len(f.policy.dirs) == 0,
		Suppress: lint.SuppressOptions{Inline: !f.noInline, Today: time.Now(), Whole: coversRoot(root, args)}})
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return "", nil, nil, err
		}
		return "", nil, nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	return root, out, eng.Rules(), nil
}

func runFix(ctx context.Context, stdout, stderr io.Writer, f fixFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	root, out, rules, err := lintOnce(ctx, f.lint, args)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, r := range f.rules {
		found := false
		for _, rule := range rules {
			if r == rule.ID || r == rule.Name {
				want[rule.ID], found = true, true
			}
		}
		if !found {
			return usageErr("--rule %q: not a rule id or name (see buildgate rules)", r)
		}
	}
	// Findings with a fix, and source-build findings a removal may answer,
	// by file; suppressed findings are not in out.Findings, so they are
	// never fixed.
	byPath := map[string][]finding.Finding{}
	for _, fd := range out.Findings {
		if fd.Path == "" || len(want) > 0 && !want[fd.Rule] {
			continue
		}
		if fd.Fix != nil || fix.SourceBuildRule(fd.Name) {
			byPath[fd.Path] = append(byPath[fd.Path], fd)
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Suppressed findings, by file: an edit that would take one away is
	// refused with the whole file's fix (a suppressed step inside a stage
	// the fix would remove, the suppression comment itself).
	suppressed := map[string][]finding.Finding{}
	for _, fd := range out.Suppressed {
		suppressed[fd.Path] = append(suppressed[fd.Path], fd)
	}
	changed, failed := 0, 0
	why := map[string][]string{} // why findings were not fixed, by whyKey, in file order
	r, err := os.OpenRoot(root)
	if err != nil {
		return usageErr("%v", err)
	}
	defer func() { _ = r.Close() }()
	bakes := bakeFiles(r, out.Paths)
	for _, p := range paths {
		// A link or special file is neither planned nor written (fix
		// writes through no link), and says so; the other files go on.
		skip := func(reason string) {
			fmt.Fprintf(stderr, "buildgate: %s: not fixed: %s\n", p, reason)
			for _, fd := range byPath[p] {
				why[whyKey(fd)] = append(why[whyKey(fd)], reason)
			}
		}
		if st, err := r.Lstat(filepath.FromSlash(p)); err == nil && !st.Mode().IsRegular() {
			skip("not a regular file (a link is never written through; fix its target)")
			continue
		}
		old, err := safefile.In(r, p, loader.DefaultMaxFileSize)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			skip(safefile.Describe(err))
			continue
		}
		edits, bad := fileEdits(p, old, byPath[p], bakes, why)
		if bad == "" {
			bad = coversSuppressed(old, edits, suppressed[p])
		}
		if bad != "" {
			fmt.Fprintf(stderr, "buildgate: %s: not fixed: %s\n", p, bad)
			// Nothing in the file changes: every finding of it stays, for
			// this reason.
			for _, fd := range byPath[p] {
				delete(why, whyKey(fd))
			}
			for _, fd := range byPath[p] {
				why[whyKey(fd)] = append(why[whyKey(fd)], bad)
			}
			continue
		}
		updated, err := fix.Apply(old, edits)
		if err != nil {
			fmt.Fprintf(stderr, "buildgate: %s: not fixed: %v\n", p, err)
			continue
		}
		if string(updated) == string(old) {
			continue
		}
		changed++
		if f.diff {
			if _, err := io.WriteString(stdout, fix.Diff(p, old, updated)); err != nil {
				return err
			}
			continue
		}
		if err := safefile.Rewrite(root, p, updated); err != nil {
			fmt.Fprintf(stderr, "buildgate: %s: not written: %s\n", p, safefile.Describe(err))
			failed++
			continue
		}
		fmt.Fprintf(stderr, "buildgate: fixed %s\n", p)
	}
	if failed > 0 {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%d %s could not be written (the others were fixed)", failed, plural(failed, "file"))}
	}
	if f.diff {
		if changed > 0 {
			return &exitError{code: exitFindings}
		}
		return nil
	}
	// What is left: lint again (a fix must not leave the files worse).
	_, after, _, err := lintOnce(ctx, f.lint, args)
	if err != nil {
		return err
	}
	left := after.Findings
	if len(want) > 0 {
		left = left[:0:0]
		for _, fd := range after.Findings {
			if want[fd.Rule] {
				left = append(left, fd)
			}
		}
	}
	if len(left) == 0 {
		fmt.Fprintf(stderr, "buildgate: %d %s fixed, nothing left to fix\n", changed, plural(changed, "file"))
		return nil
	}
	var b strings.Builder
	for _, fd := range left {
		reason := "no fix for it (yet)"
		if rs := why[whyKey(fd)]; len(rs) > 0 {
			reason, why[whyKey(fd)] = rs[0], rs[1:]
		}
		fmt.Fprintf(&b, "%s: %s: %s [%s %s] (not fixed: %s)\n", report.Where(fd), fd.Severity, fd.Message, fd.Rule, fd.Name, reason)
	}
	fmt.Fprintf(&b, "%d %s fixed; %d %s left without a fix\n", changed, plural(changed, "file"), len(left), plural(len(left), "finding"))
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	return &exitError{code: exitFindings}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// fileEdits are the edits of one file: the findings' own fixes, and the
// removal a source-build finding calls for where the file's kind has a
// planner (Dockerfiles today). Why a finding is left is recorded in why.
// A fix that does not fit the file makes the whole file's fix fail.
func fileEdits(path string, src []byte, fds []finding.Finding, bakes map[string][]byte, why map[string][]string) ([]fix.Edit, string) {
	var edits []fix.Edit
	var removals []finding.Finding
	for _, fd := range fds {
		if fd.Fix == nil {
			removals = append(removals, fd)
			continue
		}
		e, err := fix.For(src, fd.Fix.Pos, fd.Fix.Replacement)
		if err != nil {
			return nil, fmt.Sprintf("the fix of %s %s does not fit the file: %v", fd.Rule, report.Where(fd), err)
		}
		edits = append(edits, e)
	}
	if len(removals) == 0 {
		return edits, ""
	}
	plan, ok := planRemoval(path, src, removals, bakes)
	if !ok {
		for _, fd := range removals {
			why[whyKey(fd)] = append(why[whyKey(fd)], "no removal for this kind of file")
		}
		return edits, ""
	}
	// Findings keep their order across the re-lint (a fix moves lines,
	// never reorders them), so reasons are taken in the same order.
	for _, d := range plan.Declined {
		why[whyKey(d.Finding)] = append(why[whyKey(d.Finding)], d.Reason)
	}
	return append(edits, plan.Edits...), ""
}

// whyKey names findings across the re-lint after fixing, when their
// lines may have moved: file, rule and message (findings that share them
// are told apart by their order).
func whyKey(fd finding.Finding) string {
	return fd.Path + "\x00" + fd.Rule + "\x00" + fd.Message
}

// coversSuppressed says why a file's edits are refused when one removes
// the place of a suppressed finding, "" when none does.
func coversSuppressed(src []byte, edits []fix.Edit, sup []finding.Finding) string {
	for _, fd := range sup {
		off, _, err := fix.Offsets(src, fd.Pos)
		if err != nil {
			continue
		}
		for _, e := range edits {
			if off >= e.Start && off < e.End {
				return fmt.Sprintf("the fix would remove %s, whose %s finding is suppressed; fix the file by hand or lift the suppression", report.Where(fd), fd.Rule)
			}
		}
	}
	return ""
}
