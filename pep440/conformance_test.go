package pep440

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14: packaging's own test vectors (pypa/packaging tests/, the
// commit in the file), extracted by scripts/conformance/ from
// ../shared/conformance/packaging and kept as a generated table.
type packagingVectors struct {
	Source struct {
		Commit string `json:"commit"`
		Files  []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	} `json:"source"`
	ValidVersions     []string          `json:"valid_versions"`
	InvalidVersions   []string          `json:"invalid_versions"`
	Normalized        [][2]string       `json:"normalized"`
	Ordering          [][3]any          `json:"ordering"`
	SpecifierContains []specContainsRow `json:"specifier_contains"`
	ValidSpecifiers   [][2]string       `json:"valid_specifiers"`
	InvalidSpecifiers [][2]string       `json:"invalid_specifiers"`
	Prereleases       []struct {
		Spec     string `json:"spec"`
		SpecPre  *bool  `json:"spec_prereleases"`
		Expected bool   `json:"expected"`
	} `json:"specifier_prereleases"`
}

type specContainsRow struct {
	Spec       string `json:"spec"`
	Version    string `json:"version"`
	SpecPre    *bool  `json:"spec_prereleases"`
	ContainPre *bool  `json:"contains_prereleases"`
	Expected   bool   `json:"expected"`
	Kind       string `json:"kind"`
	Test       string `json:"test"`
}

func loadVectors(t *testing.T) packagingVectors {
	b, err := os.ReadFile("testdata/packaging-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v packagingVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// defaultPrereleases is the one class of difference: packaging 26's
// contains(), asked without a prereleases argument, admits a pre-release
// that no clause names (">1.0" contains "2.0a1"); pip does not install one
// then (without --pre it takes a pre-release only when a clause names one),
// and buildgate, asking what pip installs, follows pip. Such a vector holds
// for buildgate once pre-releases are allowed.
func defaultPrereleases(set Set, ver Version, r specContainsRow) bool {
	if r.SpecPre != nil || r.ContainPre != nil || !r.Expected || !ver.IsPrerelease() {
		return false
	}
	yes := true
	set.Prereleases = &yes
	return set.Contains(ver)
}

// The table is packaging's tests as ../shared/conformance holds them:
// when they change there, it is regenerated (scripts/conformance).
func TestPackagingVectorsCurrent(t *testing.T) {
	v := loadVectors(t)
	dir := "../../shared/conformance/packaging"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s absent: the table's source is not checked", dir)
	}
	for _, f := range v.Source.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if sum := fmt.Sprintf("%x", sha256.Sum256(b)); sum != f.SHA256 {
			t.Errorf("%s changed (sha256 %s, the table has %s): regenerate testdata/packaging-vectors.json with scripts/conformance", f.Path, sum, f.SHA256)
		}
	}
}

func TestPackagingConformance(t *testing.T) {
	v := loadVectors(t)
	var diffs []string
	pipDefault := 0
	diff := func(key, format string, args ...any) {
		diffs = append(diffs, key+": "+fmt.Sprintf(format, args...))
	}
	for _, s := range v.ValidVersions {
		if _, err := Parse(s); err != nil {
			diff("valid "+s, "%v", err)
		}
	}
	for _, s := range v.InvalidVersions {
		if _, err := Parse(s); err == nil {
			diff("invalid "+s, "accepted")
		}
	}
	for _, n := range v.Normalized {
		if got, err := Parse(n[0]); err != nil || got.String() != n[1] {
			diff("normalized "+n[0], "got %v (%v), want %s", got, err, n[1])
		}
	}
	for _, o := range v.Ordering {
		a, b, want := o[0].(string), o[1].(string), int(o[2].(float64))
		va, err1 := Parse(a)
		vb, err2 := Parse(b)
		if err1 != nil || err2 != nil {
			diff("ordering "+a+" "+b, "unparsable")
			continue
		}
		if got := Compare(va, vb); got != want {
			diff("ordering "+a+" "+b, "got %d, want %d", got, want)
		}
	}
	for _, s := range v.ValidSpecifiers {
		if _, err := parseKind(s[0], s[1]); err != nil {
			diff("valid specifier "+s[1], "%v", err)
		}
	}
	for _, s := range v.InvalidSpecifiers {
		if _, err := parseKind(s[0], s[1]); err == nil {
			diff("invalid specifier "+s[1], "accepted")
		}
	}
	for _, p := range v.Prereleases {
		set, err := ParseSet(p.Spec)
		if err != nil {
			diff("prereleases "+p.Spec, "%v", err)
			continue
		}
		set.Prereleases = p.SpecPre
		if got := set.AllowsPrereleases(); got != p.Expected {
			diff("prereleases "+p.Spec, "got %v, want %v", got, p.Expected)
		}
	}
	for _, r := range v.SpecifierContains {
		key := fmt.Sprintf("contains %s %s pre=%s/%s", r.Spec, r.Version, pre(r.SpecPre), pre(r.ContainPre))
		set, err := parseKind(r.Kind, r.Spec)
		if err != nil {
			diff(key, "%v", err)
			continue
		}
		set.Prereleases = r.SpecPre
		if r.ContainPre != nil {
			set.Prereleases = r.ContainPre
		}
		got := false
		ver, verr := Parse(r.Version)
		if verr == nil {
			got = set.Contains(ver)
		} else {
			got = set.containsString(r.Version)
		}
		if got != r.Expected && verr == nil && defaultPrereleases(set, ver, r) {
			pipDefault++
			continue
		}
		if got != r.Expected {
			diff(key, "got %v, want %v (%s)", got, r.Expected, r.Test)
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
	t.Logf("%d versions, %d orderings, %d contains, %d specifiers checked; %d contains answered as pip does (pre-releases no clause names)",
		len(v.ValidVersions)+len(v.InvalidVersions), len(v.Ordering), len(v.SpecifierContains),
		len(v.ValidSpecifiers)+len(v.InvalidSpecifiers), pipDefault)
	if pipDefault > 35 {
		t.Errorf("%d vectors differ by pre-release default: more than the 35 known", pipDefault)
	}
}

func pre(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
}

// parseKind reads a Specifier (one clause) or a SpecifierSet.
func parseKind(kind, s string) (Set, error) {
	if kind == "Specifier" {
		sp, err := ParseSpecifier(s)
		if err != nil {
			return Set{}, err
		}
		if strings.Contains(s, ",") {
			return Set{}, fmt.Errorf("a comma in one specifier")
		}
		return Set{Specs: []Specifier{sp}}, nil
	}
	return ParseSet(s)
}
