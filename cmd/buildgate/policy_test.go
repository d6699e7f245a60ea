package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const userRule = `# METADATA
# title: No curl piped to a shell
# description: Downloading a script and running it unseen.
# custom:
#   id: ACME001
#   name: no-curl-pipe
#   severity: warning
package buildgate.rules.acme.no_curl_pipe

import data.buildgate.lib

deny contains {"msg": sprintf("%s pipes a download into a shell", [c.name]), "loc": c} if {
	some s in lib.scripts
	some c in s.script.commands
	c.name == "curl"
	some w in c.words
	w.value == "-sSL"
}
`

const stringRule = `package buildgate.rules.acme.owners

warn contains "the repository has no CODEOWNERS entry for docker/ (from data)" if {
	not data.buildgate.data.owners.docker
}
`

func policyRepo(t *testing.T) (repo, policies string) {
	t.Helper()
	repo = writeTree(t, map[string]string{
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n",
		"docker/install.sh":     "#!/bin/sh\ncurl -sSL https://example.com/x.sh | sh\n",
	})
	policies = writeTree(t, map[string]string{
		"acme/no_curl_pipe.rego": userRule,
		"acme/no_curl_pipe.md":   "# ACME001 no-curl-pipe: No curl piped to a shell\n\n## What it catches\n\ncurl | sh.\n\n## Why\n\nUnreviewed code.\n\n## How to fix\n\nDownload, verify, run.\n",
		"acme/owners.rego":       stringRule,
		"acme/no_curl_pipe_test.rego": `package buildgate.rules.acme.no_curl_pipe_test

import data.buildgate.rules.acme.no_curl_pipe as rule

test_fires if {
	doc := buildgate.parse("shell", "a.sh", "curl -sSL https://x | sh\n")
	count(rule.deny) == 1 with input as {"documents": [doc]}
}
`,
	})
	return repo, policies
}

// Done means 1: a user rule with METADATA is a first-class rule; a
// plain-string rule works.
func TestUserPolicies(t *testing.T) {
	t.Parallel()
	repo, pol := policyRepo(t)
	r := runBin(t, repo, "lint", "--root", ".", "--policy", pol)
	for _, want := range []string{
		"docker/install.sh:2:1: warning: curl pipes a download into a shell [ACME001 no-curl-pipe]",
		"(repository): warning: the repository has no CODEOWNERS entry for docker/ (from data) [owners owners]",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("warnings only: exit %d", r.code)
	}
	data := filepath.Join(t.TempDir(), "data.yaml")
	os.WriteFile(data, []byte("owners:\n  docker: [\"@acme/build\"]\n"), 0o644)
	r = runBin(t, repo, "lint", "--root", ".", "--policy", pol, "--data", data)
	if strings.Contains(r.stdout, "CODEOWNERS") {
		t.Errorf("--data not seen by the policy:\n%s", r.stdout)
	}
	os.WriteFile(filepath.Join(repo, ".buildgate.yaml"), []byte("rules:\n  ACME001: error\n  owners: off\n"), 0o644)
	r = runBin(t, repo, "lint", "--root", ".", "--policy", pol)
	if r.code != 1 || !strings.Contains(r.stdout, "error: curl pipes") || strings.Contains(r.stdout, "CODEOWNERS") {
		t.Errorf("config overrides on user rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, repo, "rules", "--policy", pol)
	if !strings.Contains(r.stdout, "ACME001  warning   no-curl-pipe") || !strings.Contains(r.stdout, "owners") {
		t.Errorf("rules:\n%s", r.stdout)
	}
	doc, raw := lintSARIF(t, repo, "--policy", pol)
	validateSARIF(t, raw)
	found := false
	for _, rule := range doc.Runs[0].Tool.Driver.Rules {
		if rule.ID == "ACME001" {
			found = rule.ShortDescription["text"] == "No curl piped to a shell" && strings.Contains(rule.Help["markdown"], "Download, verify, run.") &&
				rule.Default["level"] == "warning"
		}
	}
	if !found {
		t.Errorf("ACME001 missing or incomplete in SARIF rules: %s", raw)
	}
	for _, res := range doc.Runs[0].Results {
		if res.RuleID == "ACME001" && res.Level != "error" {
			t.Errorf("the configured severity is the result's level: %s", res.Level)
		}
	}
}

// Done means 2: verify runs the built-in and user tests, with coverage.
func TestVerify(t *testing.T) {
	t.Parallel()
	r := runBin(t, ".", "verify", "--coverage", "--threshold", "90")
	if r.code != 0 || !strings.Contains(r.stdout, "tests passed") || !strings.Contains(r.stdout, "total (") {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var total float64
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasSuffix(strings.Fields(line + " x")[0], "%") && strings.Contains(line, "total") {
			json.Unmarshal([]byte(strings.TrimSuffix(strings.Fields(line)[0], "%")), &total)
		}
	}
	if total < 90 {
		t.Errorf("built-in pack coverage %.1f%% < 90%%:\n%s", total, r.stdout)
	}
	_, pol := policyRepo(t)
	if r := runBin(t, ".", "verify", "--policy", pol); r.code != 0 {
		t.Errorf("user tests: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(filepath.Join(pol, "acme", "failing_test.rego"), []byte("package buildgate.rules.acme.failing_test\n\ntest_wrong if {\n\t1 == 2\n}\n"), 0o644)
	r = runBin(t, ".", "verify", "--policy", pol)
	if r.code != 1 || !strings.Contains(r.stdout, "failing_test.rego:3: data.buildgate.rules.acme.failing_test.test_wrong: FAIL") {
		t.Errorf("a failing user test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, ".", "verify", "--coverage", "--threshold", "100")
	if r.code != 1 || !strings.Contains(r.stderr, "under --threshold 100.0%") {
		t.Errorf("under the threshold: exit %d\n%s", r.code, r.stderr)
	}
}

// Done means 3: the sandbox refuses the network and the environment, and
// an endless policy hits the timeout.
func TestSandboxAndTimeout(t *testing.T) {
	t.Parallel()
	repo, _ := policyRepo(t)
	tests := []struct{ name, src, args, want string }{
		{"http.send", "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\tr := http.send({\"method\": \"get\", \"url\": \"https://example.com\"})\n\tr.status_code == 200\n}\n", "",
			"bad/x.rego:4:7: http.send is not allowed: policies run without network access"},
		{"environment", "package buildgate.rules.x\n\ndeny contains v if {\n\tv := opa.runtime().env.HOME\n}\n", "",
			"bad/x.rego:4:7: opa.runtime().env is not available: policies run without the environment"},
		{"syntax", "package buildgate.rules.x\n\ndeny contains if {\n", "", "bad/x.rego:3:"},
		{"strict", "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\ty := 1\n}\n", "", "bad/x.rego:4:"},
		{"endless", "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\tsome i in numbers.range(1, 100000)\n\tsome j in numbers.range(1, 100000)\n\ti * j == -1\n}\n", "--timeout=1s",
			"data.buildgate.rules.x.deny did not finish within --timeout 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "bad"), 0o755)
			os.WriteFile(filepath.Join(dir, "bad", "x.rego"), []byte(tt.src), 0o644)
			args := []string{"lint", "--root", repo, "--policy", filepath.Join(dir, "bad")}
			if tt.args != "" {
				args = append(args, tt.args)
			}
			r := runBin(t, dir, args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}

// Done means 4: the examples do what their docs say.
func TestExamples(t *testing.T) {
	t.Parallel()
	if r := runBin(t, ".", "verify", "--policy", "../../examples/policies"); r.code != 0 {
		t.Errorf("example policy tests: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	repo := writeTree(t, map[string]string{
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n",
		"Dockerfile":            "FROM python\nFROM python:3.12-slim\n",
	})
	r := runBin(t, repo, "lint", "--root", ".", "--policy", filepath.Join(mustAbs(t, "../../examples/policies")))
	if r.code != 0 || !strings.Contains(r.stdout, "Dockerfile:1:6: warning: FROM python has no pinned tag") || strings.Contains(r.stdout, "Dockerfile:2:") {
		t.Errorf("no-latest-tag example: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	second := mustAbs(t, "../../examples/second-dependency/.buildgate.yaml")
	rep, res := lintJSON(t, mustAbs(t, "../../testdata/vllm-rocm/after"), "--config", second)
	if res.code != 1 || len(rep.Findings) < 20 {
		t.Errorf("second dependency: exit %d, %d findings", res.code, len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if !strings.Contains(f.Message, "nixl") || strings.Contains(strings.ToLower(f.Message), "mooncake") {
			t.Errorf("second dependency: a finding not about NIXL: %+v", f)
		}
	}

	cuda := mustAbs(t, "../../examples/cuda-mooncake-wheel/.buildgate.yaml")
	rep, res = lintJSON(t, corpusDir(t, "vllm/analog-pr51067-cuda/before"), "--config", cuda)
	if res.code != 1 || len(rep.Findings) == 0 {
		t.Errorf("CUDA before-state: exit %d, %+v", res.code, rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Rule != "BG102" || !strings.Contains(f.Message, "MOONCAKE_WHEEL_") {
			t.Errorf("CUDA before-state: unexpected %+v", f)
		}
	}
	rep, res = lintJSON(t, corpusDir(t, "vllm/analog-pr51067-cuda/after"), "--config", cuda)
	if res.code != 0 || len(rep.Findings) != 0 {
		t.Errorf("CUDA after-state: exit %d, %+v", res.code, rep.Findings)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
