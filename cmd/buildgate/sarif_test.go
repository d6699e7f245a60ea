package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

type sarifDoc struct {
	Schema string `json:"$schema"`
	Runs   []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID               string            `json:"id"`
					Name             string            `json:"name"`
					ShortDescription map[string]string `json:"shortDescription"`
					FullDescription  map[string]string `json:"fullDescription"`
					Help             map[string]string `json:"help"`
					HelpURI          *string           `json:"helpUri"`
					Default          map[string]string `json:"defaultConfiguration"`
					Properties       map[string]any    `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool             `json:"executionSuccessful"`
			Notifications       []map[string]any `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		OriginalURIBaseIDs map[string]map[string]any `json:"originalUriBaseIds"`
		AutomationDetails  map[string]string         `json:"automationDetails"`
		Provenance         []map[string]string       `json:"versionControlProvenance"`
		Results            []struct {
			RuleID       string           `json:"ruleId"`
			RuleIndex    int              `json:"ruleIndex"`
			Level        string           `json:"level"`
			Suppressions []map[string]any `json:"suppressions"`
			Message      struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				Physical struct {
					Artifact struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
						EndLine     int `json:"endLine"`
						EndColumn   int `json:"endColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Fingerprints map[string]string `json:"partialFingerprints"`
			Fixes        []map[string]any  `json:"fixes"`
		} `json:"results"`
	} `json:"runs"`
}

func lintSARIF(t *testing.T, dir string, args ...string) (sarifDoc, string) {
	t.Helper()
	r := runBin(t, dir, append([]string{"lint", "--root", ".", "--format", "sarif"}, args...)...)
	if r.code > 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc sarifDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	return doc, r.stdout
}

func validateSARIF(t *testing.T, raw string) {
	t.Helper()
	schemaPath, _ := filepath.Abs("../../../shared/schemas/sarif-schema-2.1.0.json")
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Skip("../shared/schemas/sarif-schema-2.1.0.json is absent")
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("SARIF does not validate: %v", err)
	}
}

// Done means 1: the before-state's SARIF validates and meets what GitHub
// code scanning needs to show every result on its line.
func TestSARIFForGitHub(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs("../../testdata/vllm-rocm/before")
	doc, raw := lintSARIF(t, dir, "--help-uri-base", "https://example.com/docs/rules")
	validateSARIF(t, raw)
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs", len(doc.Runs))
	}
	run := doc.Runs[0]
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		ids[r.ID] = i
		if r.ShortDescription["text"] == "" || r.FullDescription["text"] == "" || r.Help["text"] == "" || r.Help["markdown"] == "" {
			t.Errorf("rule %s lacks a description or help", r.ID)
		}
		if !strings.Contains(r.Help["markdown"], "## How to fix") || r.Default["level"] == "" || r.Properties["precision"] == nil {
			t.Errorf("rule %s: help, level or precision missing", r.ID)
		}
		if r.HelpURI == nil || *r.HelpURI != "https://example.com/docs/rules/"+r.ID+".md" {
			t.Errorf("rule %s: helpUri %v", r.ID, r.HelpURI)
		}
	}
	if len(ids) != 13 {
		t.Errorf("%d rules", len(ids))
	}
	// No --category: no automationDetails, so that upload-sarif's own
	// category (workflow, job and matrix values) tells runs apart.
	if run.AutomationDetails != nil || run.OriginalURIBaseIDs["%SRCROOT%"] == nil || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("run: automation %v, bases %v, invocations %+v", run.AutomationDetails, run.OriginalURIBaseIDs, run.Invocations)
	}
	if len(run.Results) != 62 {
		t.Errorf("%d results, want 62", len(run.Results))
	}
	fixes := 0
	seen := map[string]bool{}
	for _, r := range run.Results {
		if i, ok := ids[r.RuleID]; !ok || i != r.RuleIndex {
			t.Errorf("result of %s: ruleIndex %d", r.RuleID, r.RuleIndex)
		}
		if len(r.Locations) != 1 {
			t.Fatalf("result with %d locations", len(r.Locations))
		}
		loc := r.Locations[0].Physical
		if loc.Artifact.URIBaseID != "%SRCROOT%" || loc.Artifact.URI == "" || strings.HasPrefix(loc.Artifact.URI, "/") || strings.Contains(loc.Artifact.URI, ":") {
			t.Errorf("location %+v", loc.Artifact)
		}
		if loc.Region == nil || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 || loc.Region.EndColumn < loc.Region.StartColumn && loc.Region.EndLine == loc.Region.StartLine {
			t.Errorf("region %+v", loc.Region)
		}
		fp := r.Fingerprints["buildgate/v1"]
		if fp == "" || seen[fp] {
			t.Errorf("fingerprint %q missing or repeated", fp)
		}
		seen[fp] = true
		if r.Level != "error" || r.Message.Text == "" {
			t.Errorf("level %q message %q", r.Level, r.Message.Text)
		}
		if r.RuleID == "BG201" || r.RuleID == "BG202" {
			if len(r.Fixes) != 1 {
				t.Errorf("%s without a fix", r.RuleID)
			}
			fixes++
		}
	}
	if fixes == 0 {
		t.Error("no pin finding with a fix")
	}
	if strings.Contains(raw, dir) {
		t.Error("the report holds the root's local path")
	}
}

// A too-low pin's fix is the specifier to put in place, at its position.
func TestSARIFPinFix(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": "numpy\nmooncake-transfer-engine-rocm >= 0.3.9\n"})
	doc, raw := lintSARIF(t, dir)
	validateSARIF(t, raw)
	if len(doc.Runs[0].Results) != 1 {
		t.Fatalf("results %+v", doc.Runs[0].Results)
	}
	fix, _ := json.Marshal(doc.Runs[0].Results[0].Fixes)
	want := `[{"artifactChanges":[{"artifactLocation":{"uri":"requirements/rocm.txt","uriBaseId":"%SRCROOT%"},"replacements":[{"deletedRegion":{"endColumn":39,"endLine":2,"startColumn":31,"startLine":2},"insertedContent":{"text":"\u003e= 0.3.13"}}]}],"description":{"text":"require mooncake-transfer-engine-rocm \u003e= 0.3.13"}}]`
	if string(fix) != want {
		t.Errorf("fix\n got %s\nwant %s", fix, want)
	}
}

// Done means 2: moving a finding down moves its region, not its
// fingerprint.
func TestFingerprintsStable(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n",
		"Dockerfile": "FROM base AS mooncake_build\nARG MOONCAKE_BRANCH\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make\n" +
			"RUN cd Mooncake && make\n",
	}
	dir := writeTree(t, files)
	before, _ := lintSARIF(t, dir)
	shifted := "# a comment\n\n# another\n" + files["Dockerfile"]
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(shifted), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := lintSARIF(t, dir)
	b, a := before.Runs[0].Results, after.Runs[0].Results
	if len(b) == 0 || len(a) != len(b) {
		t.Fatalf("%d results, then %d", len(b), len(a))
	}
	for i := range b {
		if b[i].Fingerprints["buildgate/v1"] != a[i].Fingerprints["buildgate/v1"] {
			t.Errorf("result %d (%s): fingerprint changed", i, b[i].RuleID)
		}
		if a[i].Locations[0].Physical.Region.StartLine != b[i].Locations[0].Physical.Region.StartLine+3 {
			t.Errorf("result %d: region did not move", i)
		}
	}
}

// versionControlProvenance: the revision, and origin only as a public URI.
func TestSARIFProvenance(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n"})
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "init")
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	gitCmd(t, dir, "remote", "add", "origin", "/srv/git/private-mirror.git")
	doc, raw := lintSARIF(t, dir)
	validateSARIF(t, raw)
	p := doc.Runs[0].Provenance
	if len(p) != 0 || !strings.Contains(raw, `"revisionId": "`+head+`"`) {
		t.Errorf("with only a local remote, no provenance (SARIF requires repositoryUri) but the revision in the run's properties: %v", p)
	}
	if strings.Contains(raw, "/srv/git") || strings.Contains(raw, dir) {
		t.Error("a local path in the report")
	}
	gitCmd(t, dir, "remote", "set-url", "origin", "https://ci:secret@github.com/acme/app.git")
	doc, raw = lintSARIF(t, dir)
	validateSARIF(t, raw)
	if p := doc.Runs[0].Provenance; len(p) != 1 || p[0]["repositoryUri"] != "https://github.com/acme/app" || p[0]["revisionId"] != head ||
		p[0]["branch"] != "main" || strings.Contains(raw, "secret") {
		t.Errorf("provenance with a public remote: %v", p)
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Unreadable files are notifications of the invocation as well as BG001.
func TestSARIFNotifications(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n"})
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "Dockerfile")); err != nil {
		t.Skip(err)
	}
	doc, raw := lintSARIF(t, dir)
	validateSARIF(t, raw)
	n := doc.Runs[0].Invocations[0].Notifications
	if len(n) != 1 || n[0]["level"] != "error" || !strings.Contains(raw, "Dockerfile could not be read") {
		t.Errorf("notifications %v", n)
	}
}

func TestSeveralFormats(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.9\n"})
	r := runBin(t, dir, "lint", "--root", ".", "--format", "text", "--format", "sarif=out/b.sarif", "--format", "junit=b.xml", "--format", "markdown=b.md")
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "[BG202 wheel-pin-too-low]") {
		t.Errorf("text on stdout: %s", r.stdout)
	}
	if r.code != 1 {
		t.Errorf("exit %d", r.code)
	}
	for _, f := range []string{"b.xml", "b.md"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !strings.Contains(string(b), "BG202") {
			t.Errorf("%s: %v", f, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out/b.sarif")); err != nil || !strings.Contains(string(b), `"ruleId": "BG202"`) {
		t.Errorf("out/b.sarif (its directory is created): %v", err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "text", "--format", "json"}, "only one --format can go to standard output"},
		{[]string{"--format", "sarif=", "--format", "text"}, "no file after ="},
		{[]string{"--format", "json=a", "--format", "sarif=a"}, "two reports to one file"},
		{[]string{"--format", "yaml"}, "--format \"yaml\""},
	} {
		r := runBin(t, dir, append([]string{"lint", "--root", "."}, tt.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
	}
}

// Issue 15, through the binary: 25,050 results (25,000 notes, then 50
// errors in a later file, 10 of them suppressed) never exceed GitHub's
// cap, the errors are kept, and suppressed results are left out unless
// asked for.
func TestSARIFCapThroughTheBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("25,050 findings")
	}
	pol := t.TempDir()
	os.WriteFile(filepath.Join(pol, "many.rego"), []byte(`# METADATA
# title: Many notes
# custom:
#   id: XN001
#   name: many-notes
#   severity: note
package buildgate.rules.test.many_notes

deny contains {"msg": sprintf("note %d", [i]), "path": "a.sh", "pos": {"line": 1, "column": 1, "end_line": 1, "end_column": 2}} if {
	some d in input.documents
	d.path == "a.sh"
	some i in numbers.range(1, 25000)
}
`), 0o644)
	os.WriteFile(filepath.Join(pol, "errors.rego"), []byte(`# METADATA
# title: Some errors
# custom:
#   id: XE001
#   name: some-errors
#   severity: error
package buildgate.rules.test.some_errors

deny contains {"msg": sprintf("error %d", [i]), "path": "z.sh", "pos": {"line": i, "column": 1, "end_line": i, "end_column": 2}} if {
	some d in input.documents
	d.path == "z.sh"
	some i in numbers.range(1, 50)
}
`), 0o644)
	var z strings.Builder
	for i := 1; i <= 50; i++ {
		if i <= 10 {
			z.WriteString("true # buildgate:ignore XE001 -- known\n")
		} else {
			z.WriteString("true\n")
		}
	}
	dir := writeTree(t, map[string]string{"a.sh": "#!/bin/sh\ntrue\n", "z.sh": z.String(), ".buildgate.yaml": "migrations: []\n"})
	for _, tc := range []struct {
		args           []string
		errors, supp   int
		notes, omitted int
	}{
		{nil, 40, 0, 24960, 40},
		{[]string{"--sarif-include-suppressed"}, 40, 10, 24950, 50},
	} {
		doc, raw := lintSARIF(t, dir, append([]string{"--policy", pol}, tc.args...)...)
		run := doc.Runs[0]
		errs, supp, notes := 0, 0, 0
		for _, r := range run.Results {
			switch {
			case r.RuleID == "XE001" && len(r.Suppressions) > 0:
				supp++
			case r.RuleID == "XE001":
				errs++
			case r.RuleID == "XN001":
				notes++
			}
		}
		if len(run.Results) > 25000 || errs != tc.errors || supp != tc.supp || notes != tc.notes {
			t.Errorf("%v: %d results: %d errors, %d suppressed, %d notes; want %d, %d, %d", tc.args, len(run.Results), errs, supp, notes, tc.errors, tc.supp, tc.notes)
		}
		if !strings.Contains(raw, fmt.Sprintf(`"note": %d`, tc.omitted)) {
			t.Errorf("%v: resultsOmitted does not count %d notes", tc.args, tc.omitted)
		}
	}
}

// Issue 15: --category writes automationDetails (for several buildgate
// jobs of one repository); without it upload-sarif's matrix-aware default
// applies.
func TestSARIFCategory(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs("../../testdata/vllm-rocm/after")
	doc, _ := lintSARIF(t, dir, "--category", "rocm")
	if doc.Runs[0].AutomationDetails["id"] != "rocm/" {
		t.Errorf("automationDetails %v", doc.Runs[0].AutomationDetails)
	}
	doc, _ = lintSARIF(t, dir)
	if doc.Runs[0].AutomationDetails != nil {
		t.Errorf("automationDetails without --category: %v", doc.Runs[0].AutomationDetails)
	}
}
