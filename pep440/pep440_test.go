package pep440

import (
	"testing"
)

// PEP 440, "Summary of permitted suffixes and relative ordering": each
// version is lower than the next.
var pepOrdering = []string{
	"1.dev0", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12",
	"1.0b1.dev456", "1.0b2", "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456",
	"1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7", "1.0+5", "1.0.post456.dev34",
	"1.0.post456", "1.0.15", "1.1.dev1",
}

func TestOrderingFromPEP440(t *testing.T) {
	for i := range pepOrdering {
		for j := range pepOrdering {
			a, b := MustParse(pepOrdering[i]), MustParse(pepOrdering[j])
			want := cmpInt(i, j)
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", pepOrdering[i], pepOrdering[j], got, want)
			}
		}
	}
}

// PEP 440, "Normalization".
func TestNormalization(t *testing.T) {
	tests := map[string]string{
		"1.0":                      "1.0",
		"v1.0":                     "1.0",
		"V1.0":                     "1.0",
		"1.1RC1":                   "1.1rc1",
		"1.0a":                     "1.0a0",
		"1.0.a1":                   "1.0a1",
		"1.0-a1":                   "1.0a1",
		"1.0_a1":                   "1.0a1",
		"1.0alpha1":                "1.0a1",
		"1.0beta2":                 "1.0b2",
		"1.0.beta.2":               "1.0b2",
		"1.0c1":                    "1.0rc1",
		"1.0pre1":                  "1.0rc1",
		"1.0preview1":              "1.0rc1",
		"1.0.post":                 "1.0.post0",
		"1.0-post1":                "1.0.post1",
		"1.0post1":                 "1.0.post1",
		"1.0-1":                    "1.0.post1",
		"1.0-r4":                   "1.0.post4",
		"1.0rev4":                  "1.0.post4",
		"1.0dev":                   "1.0.dev0",
		"1.0-dev2":                 "1.0.dev2",
		"1.0.dev-2":                "1.0.dev2",
		"1.0+ubuntu-1":             "1.0+ubuntu.1",
		"1.0+Ubuntu_1.A":           "1.0+ubuntu.1.a",
		"1!2.0":                    "1!2.0",
		"0!1.0":                    "1.0",
		"00.09000":                 "0.9000",
		" 1.0 ":                    "1.0",
		"1.0a1.post2.dev3+local.7": "1.0a1.post2.dev3+local.7",
	}
	for in, want := range tests {
		v, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if v.String() != want {
			t.Errorf("Parse(%q) = %s, want %s", in, v, want)
		}
	}
	for _, bad := range []string{"", "1.0.", "a1", "1.0+", "1.0+a..b", "1.0 beta", "==1.0", "1.0-", "1..0"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	// Trailing zeros are insignificant; local labels compare normalised.
	for _, eq := range [][2]string{{"1.0", "1.0.0.0"}, {"1.0+ubuntu-1", "1.0+ubuntu.1"}, {"1.0RC1", "1.0c1"}} {
		if Compare(MustParse(eq[0]), MustParse(eq[1])) != 0 {
			t.Errorf("%s != %s", eq[0], eq[1])
		}
	}
}

// PEP 440, "Version specifiers": the examples of each operator.
func TestSpecifiersFromPEP440(t *testing.T) {
	tests := []struct {
		set     string
		version string
		want    bool
	}{
		// Compatible release: ~=2.2 is >=2.2,==2.*; ~=1.4.5 is >=1.4.5,==1.4.*
		{"~=2.2", "2.2", true}, {"~=2.2", "2.9.1", true}, {"~=2.2", "3.0", false}, {"~=2.2", "2.1", false},
		{"~=1.4.5", "1.4.5", true}, {"~=1.4.5", "1.4.99", true}, {"~=1.4.5", "1.5.0", false},
		{"~=2.2.post3", "2.2.post3", true}, {"~=2.2.post3", "2.2", false}, {"~=2.2.post3", "2.9", true},
		{"~=1.4.5a4", "1.4.5a4", true}, {"~=1.4.5a4", "1.4.5", true}, {"~=1.4.5a4", "1.4.6b1", true}, {"~=1.4.5a4", "1.5.0", false},
		{"~=2.2.0", "2.2.5", true}, {"~=2.2.0", "2.3", false},
		{"~=1.4.5.0", "1.4.5.7", true}, {"~=1.4.5.0", "1.4.6", false},
		// Version matching, zero padding, prefix matching.
		{"==1.1.post1", "1.1.post1", true}, {"==1.1.post1", "1.1", false},
		{"==1.1", "1.1.0", true}, {"==1.1.0", "1.1", true},
		{"==1.1.*", "1.1.post1", true}, {"==1.1.*", "1.1a1", false} /* a pre-release, excluded by default */, {"==1.1.*", "1.10", false}, {"==1.1.*", "1.1", true},
		{"==1.1.*", "1.2", false}, {"==0.3.*", "0.3.0", true},
		// Local versions: ignored in the candidate unless the clause has one.
		{"==1.1", "1.1+local", true}, {"==1.1+local", "1.1", false}, {"==1.1+local", "1.1+LOCAL", true},
		// Version exclusion.
		{"!=1.1.*", "1.1.post1", false}, {"!=1.1.*", "1.2", true}, {"!=1.1", "1.1.0", false},
		// Inclusive ordered comparison.
		{">=1.7", "1.7.0.post1", true}, {"<=1.7", "1.7+local", true},
		// Exclusive ordered comparison.
		{">1.7", "1.7.1", true}, {">1.7", "1.7.0.post1", false}, {">1.7", "1.7+local", false},
		{">1.7.post2", "1.7.1", true}, {">1.7.post2", "1.7.0.post3", true}, {">1.7.post2", "1.7.0", false},
		{"<3.1", "3.0", true}, {"<3.1", "3.1.dev0", false}, {"<3.1rc1", "3.1a1", true},
		// Arbitrary equality.
		{"===foobar", "1.0", false}, {"===1.0", "1.0", true}, {"===1.0", "1.0.0", false},
		// Epochs.
		{">=1.0", "1!0.1", true}, {"<2.0", "1!0.1", false},
		// Pre-releases are excluded unless the set names one.
		{">=1.0", "2.0b1", false}, {">=1.0b1", "2.0b1", true}, {"", "1.0.dev0", false}, {"==1.0.dev0", "1.0.dev0", true},
		{"!=1.0b1", "1.0b2", false},
		// Sets are intersections.
		{">=1.0,<2.0", "1.5", true}, {">=1.0, <2.0", "2.0", false}, {">=1.0,!=1.5", "1.5", false},
	}
	for _, tt := range tests {
		set, err := ParseSet(tt.set)
		if err != nil {
			t.Errorf("ParseSet(%q): %v", tt.set, err)
			continue
		}
		if got := set.Contains(MustParse(tt.version)); got != tt.want {
			t.Errorf("%q contains %s = %v, want %v", tt.set, tt.version, got, tt.want)
		}
	}
}

// Clause level, without the set's pre-release default.
func TestClausePrefixMatchesPrereleases(t *testing.T) {
	sp, err := ParseSpecifier("==1.1.*")
	if err != nil || !sp.Contains(MustParse("1.1a1")) || !sp.Contains(MustParse("1.1.dev1")) {
		t.Errorf("==1.1.* should match 1.1a1 and 1.1.dev1 at clause level")
	}
	pre := true
	if !(Set{Specs: []Specifier{sp}, Prereleases: &pre}).Contains(MustParse("1.1a1")) {
		t.Errorf("forced pre-releases not admitted")
	}
}

func TestInvalidSpecifiers(t *testing.T) {
	for _, bad := range []string{">=1.0.*", "~=1", "~=1.0.*", ">=1.0+local", "=>1.0", "==", "1.0", "==1.0a1.*", "~=1.0+x"} {
		if _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) succeeded", bad)
		}
	}
}

// The pin rule: does a specifier set admit a version below the minimum?
func TestAdmitsBelow(t *testing.T) {
	min := MustParse("0.3.13")
	tests := []struct {
		set  string
		want bool
	}{
		{">=0.3.13", false}, {">= 0.3.13", false}, {"==0.3.13", false}, {"~=0.3.13", false},
		{">=0.3.14", false}, {">=0.3.13,<0.4", false}, {"==0.3.13.post1", false}, {"~=0.3.13.0", false},
		{"===0.3.13", false}, {">=1!0.1", false}, {"==0.3.13+rocm", false}, {">=0.3.13.post0", false},
		{"", true},                  // unpinned
		{">=0.3.9", true},           // not a string comparison: 0.3.9 < 0.3.13
		{">0.3.12", true},           // 0.3.12.1
		{">0.3.12.99", true},        // 0.3.12.99.0.1
		{"==0.3.*", true},           // 0.3.0
		{"~=0.3", true},             // 0.3
		{"~=0.3.12", true},          // 0.3.12
		{">=0.3.13rc1", true},       // the set names a pre-release: 0.3.13rc1 itself
		{">=0.3.13.dev0", true},     // 0.3.13.dev0
		{">0.3.13.dev0", true},      // 0.3.13a0...
		{"<=0.3.13", true},          // anything lower
		{"!=0.3.12", true},          // 0
		{">=0.3.12,<0.3.13", true},  // 0.3.12
		{">=0.3.12,!=0.3.12", true}, // 0.3.12.0.1
		{"===0.3.12", true},
		{"==0.3.12.*", true},
		{">=0.3.12,<0.3.12.1", true},
		{">=0.3.13a1,<0.3.13", false}, // <V excludes V's own pre-releases: empty below
		{">=0.3.12.post1,<0.3.12.post2", true},
		{"<0.3.13", true},
		{">0.3.12.post0,<0.3.13", true},
		{"==0.3.12+local", true},
	}
	for _, tt := range tests {
		set, err := ParseSet(tt.set)
		if err != nil {
			t.Errorf("ParseSet(%q): %v", tt.set, err)
			continue
		}
		v, got := set.AdmitsBelow(min)
		if got != tt.want {
			t.Errorf("%q admits below 0.3.13: %v (%s), want %v", tt.set, got, v, tt.want)
		}
		if got && (!set.Contains(v) || Compare(v, min) >= 0) {
			t.Errorf("%q: witness %s is not a member below 0.3.13", tt.set, v)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range pepOrdering {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		// The normal form parses back to the same version.
		w, err := Parse(v.String())
		if err != nil || Compare(v, w) != 0 || w.String() != v.String() {
			t.Errorf("%q -> %s -> %s (%v)", s, v, w, err)
		}
	})
}

// FuzzSpecifier: parsing a specifier set never panics, and a witness of
// AdmitsBelow is a member of the set below the minimum.
func FuzzSpecifier(f *testing.F) {
	for _, s := range []string{">=0.3.13", ">0.3.12", "==0.3.*", "~=0.3.13", ">=0.3.13rc1", "!=0.3.12,<1", "===foo", ">=1!0.1", "==0.3.12+rocm6.4", ""} {
		f.Add(s, "0.3.13")
	}
	f.Fuzz(func(t *testing.T, spec, minimum string) {
		set, err := ParseSet(spec)
		if err != nil {
			return
		}
		min, err := Parse(minimum)
		if err != nil {
			return
		}
		if w, ok := set.AdmitsBelow(min); ok && (!set.Contains(w) || Compare(w, min) >= 0) {
			t.Errorf("%q below %s: witness %s is not a member below the minimum", spec, min, w)
		}
	})
}

// Issue 14: differences found against packaging's own tests.
func TestPackagingDifferences(t *testing.T) {
	for in, want := range map[string]string{
		"1.0+007":       "1.0+7", // numeric local parts are numbers
		"1.0+AbC.007.x": "1.0+abc.7.x",
		"1.0\v":         "1.0", // Python's white space around a version
		"\u202f1.0":     "1.0",
		"1.0\u2029":     "1.0",
		"1.0\x1c":       "1.0",
	} {
		v, err := Parse(in)
		if err != nil || v.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	// ===1.0a1 names a pre-release, so it admits it (packaging 21.3 and 22+).
	set, _ := ParseSet("===1.0a1")
	if !set.Contains(MustParse("1.0a1")) {
		t.Error("===1.0a1 does not admit 1.0a1")
	}
	if set, _ := ParseSet("===foobar"); set.AllowsPrereleases() {
		t.Error("===foobar names no pre-release")
	}
}

// The one place pip 23 (packaging 21.3) and packaging 22+ (pip 24.1+)
// disagree: a < or > clause naming a pre-release admits pre-releases in
// packaging 22+ only. buildgate follows packaging 22+ by default, so that
// a pin is reported when either pip would install a version below the
// minimum; both sides are tested.
func TestPrereleaseRules(t *testing.T) {
	cases := []struct {
		spec, version string
		pip23, pkg22  bool
	}{
		{">1.0a1", "1.0a2", false, true},
		{"<1.0rc2", "1.0rc1", false, true},
		{">1.0.dev1", "1.0", true, true},
		{">=1.0a1", "1.0a2", true, true},
		{"<=1.0a1", "1.0a1", true, true},
		{"~=1.0a1", "1.0a2", true, true},
		{"==1.0a1", "1.0a1", true, true},
		{"===1.0a1", "1.0a1", true, true},
		{"!=1.0a1", "1.0a2", false, false},
		{">1.0", "1.1a1", false, false},
	}
	for _, c := range cases {
		set, err := ParseSet(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		v := MustParse(c.version)
		if got := set.ContainsBy(v, Pip23); got != c.pip23 {
			t.Errorf("pip 23: %s contains %s = %v, want %v", c.spec, c.version, got, c.pip23)
		}
		if got := set.ContainsBy(v, Packaging22); got != c.pkg22 {
			t.Errorf("packaging 22+: %s contains %s = %v, want %v", c.spec, c.version, got, c.pkg22)
		}
		if set.Contains(v) != c.pkg22 {
			t.Errorf("default: %s contains %s is not packaging 22+'s", c.spec, c.version)
		}
	}
}

// Deliberate differences, failing closed (docs/documents.md): a number of
// 2^63 or more in a version (Python's integers have no bound), and
// non-ASCII letters that pip 23's regex would fold to ASCII keywords.
func TestDeliberateDifferences(t *testing.T) {
	for _, s := range []string{"1.99999999999999999999", "9223372036854775808.0", "1.0.poſt1", "1.0prevİew1", "1.0+İ"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded; buildgate refuses it (the requirement becomes an error, BG001)", s)
		}
	}
	if _, err := Parse("9223372036854775807"); err != nil {
		t.Errorf("2^63-1 is refused: %v", err)
	}
}
