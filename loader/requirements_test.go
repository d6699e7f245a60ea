package loader

import (
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
		{"https://files.example/mooncake_transfer_engine_rocm-0.3.13-cp312-linux_x86_64.whl\n", want{name: "mooncake_transfer_engine_rocm", norm: "mooncake-transfer-engine-rocm", url: "https://files.example/mooncake_transfer_engine_rocm-0.3.13-cp312-linux_x86_64.whl", line: 1}},
		{"./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl\n", want{name: "mooncake_transfer_engine_rocm", norm: "mooncake-transfer-engine-rocm", path: "./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl", line: 1}},
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
	if len(d.Requirements) != 3 || d.Requirements[0].Name != "pkg" {
		t.Errorf("requirements = %+v", d.Requirements)
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
	wantErr := map[int]string{5: "URL", 8: "unknown option", 9: "invalid version clause", 10: "invalid version clause", 11: "leaves the repository root"}
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
