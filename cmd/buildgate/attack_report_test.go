package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// What reaches a CI log from the commands' output (red-team cases 4, 5
// and 11): every string a pull request writes — a user rule's title,
// description, page, message, fix, a test's print output, a path — in
// every command and format, and reports whose size the run does not see.

// runnerLines are the lines of out a GitHub runner takes as workflow
// commands (actions/runner splits at \n, \r and \r\n; it reads "::" after
// leading white space and "##[" anywhere), but the github format's own
// annotations (ours: "::error file=..." and the like, holding no "##[").
func runnerLines(out string, github bool) []string {
	var bad []string
	ours := regexp.MustCompile(`^::(error|warning|notice) `)
	for _, l := range regexp.MustCompile(`\r\n|\r|\n`).Split(out, -1) {
		cmd := strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[")
		ourAnnotation := github && ours.MatchString(l) && !strings.Contains(l, "##[")
		if cmd && !ourAnnotation {
			bad = append(bad, l)
		}
	}
	return bad
}

// evilText is what a pull request's policy writes in each of its strings.
const evilText = `t ##[error]legacy\n::add-mask::owned\r \u00a0::stop-commands::tok`

func TestPullRequestTextReachesNoRunner(t *testing.T) {
	t.Parallel()
	policy := fmt.Sprintf(`# METADATA
# title: "%[1]s"
# description: "%[1]s"
# custom:
#   id: EV1
#   severity: error
#   precision: "%[1]s"
#   tags: ["%[1]s"]
package buildgate.rules.ev

deny contains {"msg": "%[1]s", "path": "requirements/rocm.txt", "pos": {"line": 1, "column": 1, "end_line": 1, "end_column": 2}, "fix": {"replacement": "%[1]s", "pos": {"line": 1, "column": 1, "end_line": 1, "end_column": 1}}} if true
`, evilText)
	page := strings.ReplaceAll(strings.ReplaceAll(evilText, `\n`, "\n"), `\r`, "\r")
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt":           pinned,
		"policy/p.rego":                   policy,
		"policy/p.md":                     "# EV1\n\n" + page + "\n",
		"policy/p_test.rego":              "package buildgate.rules.ev_test\n\ntest_prints if {\n\tprint(\"" + evilText + "\")\n\tfalse\n}\n",
		"##[stop-commands]tok/Dockerfile": "FROM a\n# ##[error]comment\nARG MOONCAKE_BRANCH=main\n",
	})
	type run struct {
		args []string
		code int
	}
	runs := []run{
		{[]string{"rules", "--policy", "policy"}, 0},
		{[]string{"rules", "--policy", "policy", "EV1"}, 0},
		{[]string{"rules", "--policy", "policy", "--format", "json"}, 0},
		{[]string{"rules", "--policy", "policy", "--format", "json", "EV1"}, 0},
		{[]string{"verify", "--policy", "policy", "-v"}, 1},
		{[]string{"parse", "##[stop-commands]tok/Dockerfile"}, 0},
		{[]string{"fix", "--root", ".", "--policy", "policy", "--diff"}, 1},
	}
	for _, format := range []string{"text", "json", "sarif", "github", "junit", "markdown", "rdjson", "rdjsonl"} {
		runs = append(runs, run{[]string{"lint", "--root", ".", "--policy", "policy", "--format", format, "--show-suppressed"}, 1})
	}
	for _, r := range runs {
		t.Run(strings.Join(r.args, " "), func(t *testing.T) {
			got := runBin(t, dir, r.args...)
			if got.code != r.code {
				t.Fatalf("exit %d, want %d\n%s%s", got.code, r.code, got.stdout, got.stderr)
			}
			github := r.args[len(r.args)-2] == "github"
			if bad := runnerLines(got.stdout+"\n"+got.stderr, github); len(bad) > 0 {
				t.Errorf("lines a runner obeys:\n%s", strings.Join(bad, "\n"))
			}
			if !strings.Contains(got.stdout, "stop-commands") {
				t.Errorf("the text is not shown:\n%s", got.stdout)
			}
		})
	}
}

// A rule id or name that is not a word is refused where the rules are
// collected, the message escaped (case 4: the id reached the text
// report's last line raw).
func TestPullRequestRuleIDIsAWord(t *testing.T) {
	t.Parallel()
	for _, id := range []string{`X1\n::add-mask::owned ##[error]legacy`, `::error::x`, `a b`} {
		t.Run(id, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"requirements/rocm.txt": pinned,
				"policy/p.rego":         "# METADATA\n# custom:\n#   id: \"" + id + "\"\npackage buildgate.rules.inj\n\ndeny contains \"a finding\" if true\n",
			})
			for _, args := range [][]string{{"lint", "--root", ".", "--policy", "policy"}, {"rules", "--policy", "policy"}, {"fix", "--root", ".", "--policy", "policy", "--diff"}} {
				got := runBin(t, dir, args...)
				if got.code != 2 || !strings.Contains(got.stderr, "policy/p.rego: rule id ") || !strings.Contains(got.stderr, "a rule's id is at most 64 letters") {
					t.Errorf("%v: exit %d\n%s%s", args, got.code, got.stdout, got.stderr)
				}
				if bad := runnerLines(got.stdout+"\n"+got.stderr, false); len(bad) > 0 {
					t.Errorf("%v: lines a runner obeys:\n%s", args, strings.Join(bad, "\n"))
				}
			}
		})
	}
}

// Reports are watched and bounded while they are written (case 11):
// findings that share one 60 KB fix cost one string while the policy
// runs, but each report writes every copy.
func TestPullRequestReportSize(t *testing.T) {
	t.Parallel()
	shared := "package buildgate.rules.big\n\nbig := concat(\"\", [\"x\" | some i in numbers.range(1, 60000)])\n\n" +
		"deny contains {\"msg\": sprintf(\"m%d\", [i]), \"path\": \"requirements/rocm.txt\", \"pos\": {\"line\": 1, \"column\": 1}, \"fix\": {\"replacement\": big, \"pos\": {\"line\": 1, \"column\": 1, \"end_line\": 1, \"end_column\": 1}}} if {\n\tsome i in numbers.range(1, 300)\n}\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		file   string // the report's file, which must be left as it was
	}{
		{"a file report past --max-report-size is not written", []string{"--max-report-size", "4", "--format", "json=out/report.json"}, 2,
			"the json report to out/report.json is larger than --max-report-size 4 MB (each finding's message and fix are written whole, once per finding): the file is not written", "out/report.json"},
		{"a baseline holds no fixes: within the bound", []string{"--max-report-size", "4", "--write-baseline", "base.json"}, 1, "", ""},
		{"standard output past --max-report-size", []string{"--max-report-size", "4", "--format", "sarif"}, 2,
			"the sarif report to standard output is larger than --max-report-size 4 MB (each finding's message and fix are written whole, once per finding): standard output holds the part written before it stopped", ""},
		{"every format", []string{"--max-report-size", "4", "--format", "text", "--format", "rdjson=r.json"}, 2, "the rdjson report to r.json is larger than", "r.json"},
		{"within the bound", []string{"--max-report-size", "64", "--format", "json=out/report.json"}, 1, "", ""},
		{"no bound", []string{"--max-report-size", "0", "--format", "rdjsonl=out/report.json"}, 1, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"requirements/rocm.txt": pinned, "policy/p.rego": shared})
			if tt.file != "" {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(tt.file)), 0o755)
				os.WriteFile(filepath.Join(dir, tt.file), []byte("old\n"), 0o644)
			}
			r, _ := runLimited(t, dir, time.Minute, append([]string{"lint", "--root", ".", "--policy", "policy"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant %q", r.code, tt.code, r.stderr, tt.stderr)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "fatal error") {
				t.Errorf("a Go stack:\n%s", r.stderr)
			}
			if tt.file != "" {
				if b, _ := os.ReadFile(filepath.Join(dir, tt.file)); string(b) != "old\n" {
					t.Errorf("%s is %d bytes, not the old file", tt.file, len(b))
				}
			}
			tmps, _ := filepath.Glob(filepath.Join(dir, "*", "*.tmp"))
			tmps2, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
			if len(tmps)+len(tmps2) > 0 {
				t.Errorf("temporary files left: %v %v", tmps, tmps2)
			}
		})
	}
	t.Run("--timeout holds while a report is written", func(t *testing.T) {
		// A FIFO nobody reads, outside the root: written in place, the
		// write blocks; before, the watchdog had stopped and the run
		// waited for ever.
		dir := writeTree(t, map[string]string{"requirements/rocm.txt": pinned, "Dockerfile": "FROM a\nARG MOONCAKE_BRANCH=main\n"})
		fifo := filepath.Join(t.TempDir(), "report.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO:", err)
		}
		r, took := runLimited(t, dir, time.Minute, "lint", "--root", ".", "--timeout", "1s", "--format", "json="+fifo)
		if r.code != 2 || !strings.Contains(r.stderr, "the run did not finish within --timeout 1s (while writing the json report)") || took > 20*time.Second {
			t.Errorf("exit %d after %v\n%s", r.code, took, r.stderr)
		}
	})
}

// What goes to standard error line by line (error messages, a loader's
// panic with --debug) is escaped the same way.
func TestSafeLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\n::add-mask::x", "a\n| ::add-mask::x"},
		{"a ##[error]x", `a ##\[error]x`},
		{" \u00a0::stop-commands::tok", "|  \u00a0::stop-commands::tok"},
		{"esc \x1b]8;;x\x07", `esc \x1b]8;;x\x07`},
	}
	for _, tt := range tests {
		if got := safeLines(tt.in); got != tt.want {
			t.Errorf("safeLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var b strings.Builder
		if _, err := fmt.Fprintf(safeLinesWriter{&b}, "%s\n", tt.in); err != nil || b.String() != tt.want+"\n" {
			t.Errorf("safeLinesWriter: %q, %v", b.String(), err)
		}
	}
}
