package loader

import (
	"fmt"
	"strings"
	"testing"
)

func TestRequirementLines(t *testing.T) {
	type want struct {
		name, norm, spec string
		specs            []string // op+version
		extras           string
		marker           string
		url, vcs, path   string
		editable         bool
		hashes           int
		line, nameCol    int
	}
	tests := []struct {
		src  string
		want want
	}{
		{"mooncake-transfer-engine-rocm >= 0.3.13\n", want{name: "mooncake-transfer-engine-rocm", norm: "mooncake-transfer-engine-rocm", spec: ">= 0.3.13", specs: []string{">=0.3.13"}, line: 1, nameCol: 1}},
		{"Mooncake_Transfer.Engine-ROCM>=0.3.13\n", want{name: "Mooncake_Transfer.Engine-ROCM", norm: "mooncake-transfer-engine-rocm", spec: ">=0.3.13", specs: []string{">=0.3.13"}, line: 1, nameCol: 1}},
		{"  pkg[a, b] (>=1.0,<2) ; python_version >= \"3.9\"  # trailing comment\n", want{name: "pkg", norm: "pkg", spec: ">=1.0,<2", specs: []string{">=1.0", "<2"}, extras: "a,b", marker: `python_version >= "3.9"`, line: 1, nameCol: 3}},
		{"pkg ~= 0.3.13, != 0.3.14, === 1.0-odd\n", want{name: "pkg", norm: "pkg", spec: "~= 0.3.13, != 0.3.14, === 1.0-odd", specs: []string{"~=0.3.13", "!=0.3.14", "===1.0-odd"}, line: 1, nameCol: 1}},
		{"pkg==0.3.* \\\n    --hash=sha256:abc \\\n    --hash=sha256:def\n", want{name: "pkg", norm: "pkg", spec: "==0.3.*", specs: []string{"==0.3.*"}, hashes: 2, line: 1, nameCol: 1}},
		{"# comment\n\npkg\\\n-rocm>=1\n", want{name: "pkg-rocm", norm: "pkg-rocm", spec: ">=1", specs: []string{">=1"}, line: 3, nameCol: 1}},
		{"pkg>=1.0\r\n", want{name: "pkg", norm: "pkg", spec: ">=1.0", specs: []string{">=1.0"}, line: 1, nameCol: 1}},
		{"pkg @ https://example.com/pkg-1.0-py3-none-any.whl ; sys_platform == 'linux'\n", want{name: "pkg", norm: "pkg", url: "https://example.com/pkg-1.0-py3-none-any.whl", marker: "sys_platform == 'linux'", line: 1, nameCol: 1}},
		{"git+https://github.com/kvcache-ai/Mooncake.git@v0.3.13#egg=mooncake-transfer-engine-rocm\n", want{name: "mooncake-transfer-engine-rocm", norm: "mooncake-transfer-engine-rocm", url: "git+https://github.com/kvcache-ai/Mooncake.git@v0.3.13#egg=mooncake-transfer-engine-rocm", vcs: "git", line: 1, nameCol: 60}},
		// A wheel's file name is name==version to pip (issue 14), _ read as -.
		{"https://files.example/mooncake_transfer_engine_rocm-0.3.13-cp312-cp312-linux_x86_64.whl\n", want{name: "mooncake-transfer-engine-rocm", norm: "mooncake-transfer-engine-rocm", spec: "==0.3.13", specs: []string{"==0.3.13"}, url: "https://files.example/mooncake_transfer_engine_rocm-0.3.13-cp312-cp312-linux_x86_64.whl", line: 1, nameCol: 23}},
		{"https://files.example/foo_bar-1.2.3_post1-1-py3-none-any.whl#sha256=ab ; python_version>'3'\n", want{name: "foo-bar", norm: "foo-bar", spec: "==1.2.3-post1", specs: []string{"==1.2.3-post1"}, url: "https://files.example/foo_bar-1.2.3_post1-1-py3-none-any.whl#sha256=ab", marker: "python_version>'3'", line: 1, nameCol: 23}},
		{"https://files.example/pkg-1.0%2Brocm-py3-none-any.whl\n", want{name: "pkg", norm: "pkg", spec: "==1.0+rocm", specs: []string{"==1.0+rocm"}, url: "https://files.example/pkg-1.0%2Brocm-py3-none-any.whl", line: 1, nameCol: 23}},
		{"./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl\n", want{name: "mooncake-transfer-engine-rocm", norm: "mooncake-transfer-engine-rocm", spec: "==0.3.13", specs: []string{"==0.3.13"}, path: "./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl", line: 1, nameCol: 10}},
		// A line that starts with a URL has its marker after "; " only.
		{"https://files.example/x.tar.gz;python_version>'3'#egg=x\n", want{name: "x", norm: "x", url: "https://files.example/x.tar.gz;python_version>'3'#egg=x", line: 1, nameCol: 55}},
		{"-e ./Mooncake\n", want{path: "./Mooncake", editable: true, line: 1}},
		{"-e git+https://github.com/x/y.git#egg=y\n", want{name: "y", norm: "y", url: "git+https://github.com/x/y.git#egg=y", vcs: "git", editable: true, line: 1, nameCol: 39}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.src), func(t *testing.T) {
			d := parseAs[*RequirementsDocument](t, KindRequirements, "requirements/rocm.txt", tt.src)
			if len(d.Errors) != 0 {
				t.Fatalf("errors: %+v", d.Errors)
			}
			if len(d.Requirements) != 1 {
				t.Fatalf("requirements = %+v", d.Requirements)
			}
			r := d.Requirements[0]
			var specs, extras []string
			for _, s := range r.Specifiers {
				specs = append(specs, s.Op+s.Version)
			}
			for _, e := range r.Extras {
				extras = append(extras, *e.Value)
			}
			w := tt.want
			str := func(p *Word) string {
				if p == nil {
					return ""
				}
				return p.Text
			}
			checks := []struct {
				what      string
				got, want any
			}{
				{"name", r.Name, w.name}, {"normalized", r.Normalized, w.norm}, {"specifier", r.Specifier, w.spec},
				{"specifiers", strings.Join(specs, " "), strings.Join(w.specs, " ")},
				{"extras", strings.Join(extras, ","), w.extras}, {"marker", str(r.Marker), w.marker},
				{"url", str(r.URL), w.url}, {"vcs", r.VCS, w.vcs}, {"path", str(r.LocalPath), w.path},
				{"editable", r.Editable, w.editable}, {"hashes", len(r.Hashes), w.hashes}, {"line", r.Pos.Line, w.line},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			if w.nameCol > 0 && (r.NameWord == nil || r.NameWord.Pos.Column != w.nameCol) {
				t.Errorf("name word = %+v, want column %d", r.NameWord, w.nameCol)
			}
		})
	}
}

func TestRequirementsContinuationSpan(t *testing.T) {
	src := "numpy\nmooncake-transfer-engine-rocm \\\n    >= 0.3.13 \\\n    --hash=sha256:abc\n"
	d := parseAs[*RequirementsDocument](t, KindRequirements, "requirements/rocm.txt", src)
	r := d.Requirements[1]
	if r.Pos.Line != 2 || r.Pos.EndLine != 4 {
		t.Errorf("span %+v, want lines 2-4", r.Pos)
	}
	wantLine(t, "specifier", r.Specifiers[0].Pos, 3, 5)
	wantLine(t, "hash", r.Hashes[0].Pos, 4, 5)
}

// pip's InvalidWheelFilename: a .whl that is not name-version-…-platform.
func TestInvalidWheelFileName(t *testing.T) {
	d := parseAs[*RequirementsDocument](t, KindRequirements, "r.txt", "https://x/pkg-1.0-linux.whl\n")
	if len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Message, "not a valid wheel file name") || d.Errors[0].Pos.Column != 11 {
		t.Errorf("errors: %+v", d.Errors)
	}
}

func TestRequirementsCommentsAndOptions(t *testing.T) {
	src := strings.Join([]string{
		"# mooncake-transfer-engine-rocm >= 0.3.13", // commented-out pin
		"pkg#not-a-comment==1",                      // '#' needs white space before it
		"-r common.txt",
		"--constraint=../constraints.txt",
		"-c https://example.com/c.txt",
		"--extra-index-url https://download.pytorch.org/whl/rocm6.4",
		"--pre",
		"--bogus-option",
		"pkg2 >= ",
		"pkg3 =>1",
		"-r ../../../etc/passwd",
	}, "\n") + "\n"
	d := parseAs[*RequirementsDocument](t, KindRequirements, "requirements/rocm.txt", src)
	// The three requirement lines are ones pip refuses: errors, no pins.
	if len(d.Requirements) != 0 {
		t.Errorf("requirements = %+v", d.Requirements)
	}
	syntax := 0
	for _, e := range d.Errors {
		if e.Syntax {
			syntax++
		}
	}
	if syntax < 3 {
		t.Errorf("errors = %+v", d.Errors)
	}
	if len(d.Includes) != 4 {
		t.Fatalf("includes = %+v", d.Includes)
	}
	if d.Includes[0].Path != "requirements/common.txt" || d.Includes[1].Path != "constraints.txt" || d.Includes[1].Kind != "constraint" {
		t.Errorf("include paths = %+v", d.Includes)
	}
	if d.Includes[2].Path != "" || d.Includes[3].Path != "" {
		t.Errorf("URL and escaping includes must not be followed: %+v", d.Includes)
	}
	wantErr := map[int]string{5: "URL", 8: "no such option: --bogus-option", 9: "invalid version clause", 10: "invalid version clause", 11: "leaves the repository root"}
	for line, sub := range wantErr {
		found := false
		for _, e := range d.Errors {
			if e.Pos.Line == line && strings.Contains(e.Message, sub) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error %q at line %d: %+v", sub, line, d.Errors)
		}
	}
	opts := map[string]string{}
	for _, o := range d.Options {
		opts[o.Name] = o.Value
	}
	if opts["extra-index-url"] != "https://download.pytorch.org/whl/rocm6.4" || opts["pre"] != "" {
		t.Errorf("options = %+v", d.Options)
	}
}

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"Mooncake_Transfer.Engine--ROCM": "mooncake-transfer-engine-rocm",
		"friendly-bard":                  "friendly-bard",
		"FrIeNdLy-._.-bArD":              "friendly-bard",
	} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Issue 14: a requirements file means what pip 23's req_file reads in it.
// Each case is one difference found against pip (the parity table in
// TestPipParity checks the rest).
func TestPipLineReading(t *testing.T) {
	type got struct {
		reqs     []string // name+specifier, line
		includes []string
		errs     []string
	}
	read := func(src string) got {
		d := parseAs[*RequirementsDocument](t, KindRequirements, "requirements/rocm.txt", src)
		var g got
		for _, r := range d.Requirements {
			g.reqs = append(g.reqs, fmt.Sprintf("%s%s@%d", r.Name, r.Specifier, r.Pos.Line))
		}
		for _, i := range d.Includes {
			g.includes = append(g.includes, i.Path)
		}
		for _, e := range d.Errors {
			g.errs = append(g.errs, fmt.Sprintf("%d:%s", e.Pos.Line, e.Message))
		}
		return g
	}
	cases := []struct {
		name, src string
		reqs      []string
		includes  []string
		err       string // a substring of the only error, "" for none
	}{
		// The fail-open: pip joins a line ending in \ unless it starts
		// with a comment; the comment then swallows the next line.
		{"a backslash after a trailing comment joins, and the pin is lost", "torch  # ROCm build \\\nmooncake-transfer-engine-rocm>=0.3.13\n", []string{"torch@1"}, nil, ""},
		{"a comment line ending in a backslash does not join", "# ROCm build \\\nmooncake-transfer-engine-rocm>=0.3.13\n", []string{"mooncake-transfer-engine-rocm>=0.3.13@2"}, nil, ""},
		{"backslashes at both ends of a continued line are dropped", "\\\\pk\\\ng>=1\n", []string{"pkg>=1@1"}, nil, ""},
		// str.splitlines.
		{"a lone CR ends a line", "a==1.0\rb==2.0\r", []string{"a==1.0@1", "b==2.0@1"}, nil, ""},
		{"form feed, VT, FS, GS, RS end lines", "a\fb\vc\x1cd\x1de\x1ef\n", []string{"a@1", "b@1", "c@1", "d@1", "e@1", "f@1"}, nil, ""},
		{"NEL, LS and PS end lines", "a\u0085b\u2028c\u2029d\n", []string{"a@1", "b@1", "c@1", "d@1"}, nil, ""},
		{"CR LF is one line break", "a\r\nb\r\n", []string{"a@1", "b@2"}, nil, ""},
		// Comments and white space are Python's.
		{"a comment after a no-break space", "pkg>=1\u00a0# note\n", []string{"pkg>=1@1"}, nil, ""},
		{"a comment after a vertical tab", "pkg>=1\v# note\n", []string{"pkg>=1@1"}, nil, ""},
		{"# without white space before it is no comment", "pkg#x\n", nil, nil, "invalid version clause"},
		// Options: split on spaces only, then shlex, then optparse.
		{"a tab does not start options", "pkg\t>=1.0\t--hash=sha256:abc\n", nil, nil, "invalid version clause"},
		{"an option value quoted as a shell would", "-r \"base file.txt\"\n", nil, []string{"requirements/base file.txt"}, ""},
		{"an unclosed quote", "-r \"base.txt\n", nil, nil, "no closing quotation"},
		{"an unambiguous abbreviation", "--index=https://example.com/simple\n-r base.txt\n", nil, []string{"requirements/base.txt"}, ""},
		{"an ambiguous abbreviation", "--req base.txt\n", nil, nil, "ambiguous option: --req"},
		{"-r=base.txt is the file =base.txt", "-r=base.txt\n", nil, []string{"requirements/=base.txt"}, ""},
		{"-rbase.txt", "-rbase.txt\n", nil, []string{"requirements/base.txt"}, ""},
		{"a flag given a value", "--pre=1\n", nil, nil, "--pre option does not take a value"},
		{"a value missing", "-r\n", nil, nil, "-r option requires 1 argument"},
		{"words among options are ignored", "--pre stray words\n", nil, nil, ""},
		{"only the first -r of a line is followed", "-r a.txt -r b.txt\n", nil, []string{"requirements/a.txt"}, ""},
		{"-r before -c on a line", "-c c.txt -r a.txt\n", nil, []string{"requirements/a.txt"}, ""},
		{"options on a requirement line are read and ignored", "pkg>=1 --pre --hash=sha256:ab\n", []string{"pkg>=1@1"}, nil, ""},
		{"-e on an option line is the requirement", "-e ./mc -r a.txt\n", []string{"@1"}, nil, ""},
		// ${NAME} comes from the environment when pip installs.
		{"a version from the environment", "pkg>=${MC_VERSION}\n", []string{"pkg>=${MC_VERSION}@1"}, nil, ""},
		{"a name from the environment", "${PKG}>=1\n", nil, nil, "comes from the environment"},
		{"an include from the environment", "-r ${BASE}.txt\n", nil, []string{""}, "comes from the environment"},
		{"lower-case ${name} is no variable", "pkg>=${v}\n", nil, nil, "invalid version clause"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := read(tc.src)
			// A requirement with an error is kept as far as it was read:
			// only the error is checked then.
			if (tc.err == "" || tc.reqs != nil) && fmt.Sprint(g.reqs) != fmt.Sprint(tc.reqs) {
				t.Errorf("requirements %v, want %v", g.reqs, tc.reqs)
			}
			if fmt.Sprint(g.includes) != fmt.Sprint(tc.includes) {
				t.Errorf("includes %v, want %v", g.includes, tc.includes)
			}
			switch {
			case tc.err == "" && len(g.errs) > 0:
				t.Errorf("errors %v, want none", g.errs)
			case tc.err != "" && (len(g.errs) != 1 || !strings.Contains(g.errs[0], tc.err)):
				t.Errorf("errors %v, want one with %q", g.errs, tc.err)
			}
		})
	}
}

// pip honours a coding line (PEP 263): a UTF-7 file reads to pip as other
// text, so it is not read, always reported (review of issue 14).
func TestCodingLine(t *testing.T) {
	for src, bad := range map[string]bool{
		"# -*- coding: utf-7 -*-\n# pinned +AAo-mooncake-transfer-engine-rocm==0.3.0 # +AFw-\nmooncake-transfer-engine-rocm>=0.3.13\n": true,
		"#!/x\n# vim: set fileencoding=utf-16 :\npkg\n":                 true,
		"# coding: utf-8\npkg\n":                                        false,
		"# coding: latin-1\npkg\n":                                      false, // all ASCII: the same text
		"# coding: latin-1\n# caf\xe9\npkg\n":                           true,
		"pkg\nnumpy\n# coding: utf-7 (third line: pip does not look)\n": false,
		"pkg  # coding: utf-7 (not at the start of the line)\n":         false,
	} {
		d := parseAs[*RequirementsDocument](t, KindRequirements, "r.txt", src)
		got := false
		for _, e := range d.Errors {
			if strings.Contains(e.Message, "(its coding line)") && !e.Syntax {
				got = true
			}
		}
		if got != bad {
			t.Errorf("%q: coding error %v, want %v (%+v)", src, got, bad, d.Errors)
		}
	}
}
