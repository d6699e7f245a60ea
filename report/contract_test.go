package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The format contracts are tested here, on a fixed result, not through
// the binary: testdata/result.json is a run over the vLLM before-state
// (testdata/vllm-rocm/before: its rules, 61 findings with their
// fingerprints and fixes, one suppressed, a notification, provenance,
// a category and a note). Every format has a golden file
// (go test ./report -update rewrites them; review the diff), and the
// formats with an owner's schema are validated against it: SARIF 2.1.0,
// reviewdog's rdjson and rdjsonl, JUnit's xunit schema
// (junit_xsd_test.go).

var update = flag.Bool("update", false, "rewrite the golden files")

func contractResult(t *testing.T) *Result {
	t.Helper()
	b, err := os.ReadFile("testdata/result.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Elapsed = 1500 * time.Millisecond
	if len(r.Findings) < 50 || len(r.Suppressed) != 1 || len(r.Rules) < 10 {
		t.Fatalf("testdata/result.json: %d findings, %d suppressed, %d rules", len(r.Findings), len(r.Suppressed), len(r.Rules))
	}
	return &r
}

func render(t *testing.T, format string, r *Result) string {
	t.Helper()
	rep, ok := New(format, Options{HelpURIBase: "https://example.com/rules"})
	if !ok {
		t.Fatalf("no format %s", format)
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, r); err != nil {
		t.Fatalf("--format %s: %v", format, err)
	}
	return buf.String()
}

var junitTime = regexp.MustCompile(`time="[0-9.]+"`)

func TestFormatsGolden(t *testing.T) {
	for _, format := range FormatNames {
		t.Run(format, func(t *testing.T) {
			for _, show := range []bool{false, true} {
				r := contractResult(t)
				r.ShowSuppressed, r.SARIFSuppressed = show, show
				got := junitTime.ReplaceAllString(render(t, format, r), `time="T"`)
				name := filepath.Join("testdata", "golden."+format)
				if show {
					name += ".suppressed"
				}
				if *update {
					if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(name)
				if err != nil {
					t.Fatalf("%v (go test ./report -update)", err)
				}
				if string(want) != got {
					t.Errorf("%s differs (go test ./report -update and review the diff)\n%s", name, got)
				}
			}
		})
	}
}

func schema(t *testing.T, path, url string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("%s is absent", path)
	}
	defer func() { _ = f.Close() }()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, what, doc string) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", what, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not validate: %v", what, err)
	}
}

func TestSARIFSchema(t *testing.T) {
	s := schema(t, "../../shared/schemas/sarif-schema-2.1.0.json", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
	// The validator must refuse what the schema refuses.
	if inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"version": "2.1.0", "runs": [{"results": []}]}`)); s.Validate(inst) == nil {
		t.Fatal("a run without its tool validates")
	}
	for _, suppressed := range []bool{false, true} {
		r := contractResult(t)
		r.SARIFSuppressed = suppressed
		out := render(t, "sarif", r)
		validate(t, s, "SARIF", out)
		if suppressed != strings.Contains(out, `"suppressions"`) {
			t.Errorf("--sarif-include-suppressed %v: suppressions in the report: %v", suppressed, !suppressed)
		}
		for _, w := range []string{`"partialFingerprints"`, `"fixes"`, `"versionControlProvenance"`, `"toolExecutionNotifications"`, `"id": "rocm/"`} {
			if !strings.Contains(out, w) {
				t.Errorf("SARIF lacks %s", w)
			}
		}
	}
}

func TestRDJSONSchema(t *testing.T) {
	dir := "../../shared/schemas/reviewdog-rdf"
	result := schema(t, filepath.Join(dir, "DiagnosticResult.json"), "file:///DiagnosticResult.json")
	validate(t, result, "rdjson", render(t, "rdjson", contractResult(t)))
	diag := schema(t, filepath.Join(dir, "Diagnostic.json"), "file:///Diagnostic.json")
	sc := bufio.NewScanner(strings.NewReader(render(t, "rdjsonl", contractResult(t))))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		validate(t, diag, "an rdjsonl line", sc.Text())
	}
	if n != 61 {
		t.Errorf("%d rdjsonl lines, want one a finding (61)", n)
	}
}
