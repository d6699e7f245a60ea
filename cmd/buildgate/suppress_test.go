package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const pinned = "mooncake-transfer-engine-rocm>=0.3.13\n"

// Done means 1: every suppression form in every kind of file, with
// BG002 for a missing reason and BG003 for one that matches nothing.
func TestInlineSuppressions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content string
		args                []string
		want                []string // "line rule" of the findings reported
		suppressed          int
	}{
		// Dockerfile
		{"dockerfile above", "Dockerfile", "FROM a\n# buildgate:ignore BG102 -- nightly job still reads it\nARG MOONCAKE_BRANCH\n", nil, nil, 1},
		{"dockerfile end of RUN line", "Dockerfile", "FROM a\nRUN git clone https://github.com/kvcache-ai/Mooncake.git  # buildgate:ignore BG104 -- vendored fork\n", nil, nil, 1},
		{"dockerfile inside a continuation", "Dockerfile", "FROM a\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && \\\n    cd Mooncake && \\\n    # buildgate:ignore source-build-step -- measured separately\n    make\n", nil, []string{"2 BG104"}, 1},
		{"dockerfile ignore-file", "Dockerfile", "# buildgate:ignore-file BG102,BG101 -- legacy image\nFROM a AS mooncake_build\nARG MOONCAKE_BRANCH\nARG MOONCAKE_REPO\n", nil, nil, 3},
		{"dockerfile without reason", "Dockerfile", "FROM a\n# buildgate:ignore BG102\nARG MOONCAKE_BRANCH\n", nil, []string{"2 BG002"}, 1},
		{"dockerfile unmatched", "Dockerfile", "FROM a\n# buildgate:ignore BG101 -- stale\nARG MOONCAKE_BRANCH\n", nil, []string{"2 BG003", "3 BG102"}, 0},
		{"dockerfile unknown rule", "Dockerfile", "FROM a\n# buildgate:ignore BG999 -- typo\nARG X\n", nil, []string{"2 BG003"}, 0},
		// After ARG, # starts no comment: Docker reads it as words.
		{"dockerfile # after ARG is no comment", "Dockerfile", "FROM a\nARG MOONCAKE_BRANCH # buildgate:ignore BG102 -- x\n", nil, []string{"2 BG102"}, 0},
		{"dockerfile no rule named", "Dockerfile", "FROM a\n# buildgate:ignore -- forgot the id\nARG X\n", nil, []string{"2 BG003"}, 0},
		{"dockerfile --no-inline-ignores", "Dockerfile", "FROM a\n# buildgate:ignore BG102\nARG MOONCAKE_BRANCH\n", []string{"--no-inline-ignores"}, []string{"3 BG102"}, 0},
		// HCL, with # and //
		{"hcl above with //", "docker/ci.hcl", "// buildgate:ignore BG102 -- removed next release\nvariable \"MOONCAKE_BRANCH\" {\n  default = \"\"\n}\n", nil, nil, 1},
		{"hcl end of line with #", "docker/ci.hcl", "target \"t\" {\n  args = { MOONCAKE_REPO = \"x\" } # buildgate:ignore BG102 -- fork\n}\n", nil, nil, 1},
		{"hcl ignore-file", "docker/ci.hcl", "# buildgate:ignore-file BG101 -- cache warmers\ntarget \"mooncake-ci\" {\n}\ngroup \"g\" {\n  targets = [\"mooncake-ci\"]\n}\n", nil, nil, 2},
		{"hcl without reason", "docker/ci.hcl", "variable \"MOONCAKE_BRANCH\" { # buildgate:ignore BG102\n  default = \"\"\n}\n", nil, []string{"1 BG002"}, 1},
		// requirements
		{"requirements end of line", "requirements/rocm.txt", "mooncake-transfer-engine-rocm>=0.3.9  # buildgate:ignore BG202 -- 0.3.9 until the ROCm 7 image\n", nil, nil, 1},
		{"requirements above", "requirements/rocm.txt", "# buildgate:ignore wheel-pin-too-low -- pinned by the platform team\nmooncake-transfer-engine-rocm\n", nil, nil, 1},
		{"requirements ignore-file for the missing pin", "requirements/rocm.txt", "# buildgate:ignore-file BG201 -- this file is generated; the pin is in the lock\nnumpy\n", nil, nil, 1},
		{"requirements unmatched", "requirements/rocm.txt", pinned + "# buildgate:ignore BG202 -- no longer low\nnumpy\n", nil, []string{"2 BG003"}, 0},
		// shell
		{"shell above", "ci/build.sh", "#!/bin/bash\n# buildgate:ignore BG104 -- benchmark of the source build\ngit clone https://github.com/kvcache-ai/Mooncake.git\n", nil, nil, 1},
		{"shell end of line", "ci/build.sh", "#!/bin/bash\nMOONCAKE_BRANCH=main # buildgate:ignore BG102 -- used by the bisect script\n", nil, nil, 1},
		{"shell ignore-file", "ci/build.sh", "#!/bin/bash\n# buildgate:ignore-file BG103 -- cache cleanup script\nexport MOONCAKE_CACHE_KEY\necho $MOONCAKE_CACHE_KEY\n", nil, nil, 2},
		{"shell not a comment", "ci/build.sh", "#!/bin/bash\necho 'x#buildgate:ignore BG102' && MOONCAKE_BRANCH=1\n", nil, []string{"2 BG102"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"requirements/rocm.txt": pinned}
			files[tt.file] = tt.content
			dir := writeTree(t, files)
			rep, r := lintJSON(t, dir, tt.args...)
			var got []string
			for _, f := range rep.Findings {
				if f.Path != tt.file {
					t.Errorf("finding elsewhere: %+v", f)
					continue
				}
				got = append(got, strconv.Itoa(f.Line)+" "+f.Rule)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || rep.Summary["suppressed"] != tt.suppressed {
				t.Errorf("got %v, %d suppressed; want %v, %d suppressed\n%s", got, rep.Summary["suppressed"], tt.want, tt.suppressed, r.stdout)
			}
		})
	}
}

// Config ignores: reasons, globs, until; BG004 when expired; and both kinds
// of suppression in text, JSON and SARIF.
func TestConfigIgnoresAndReports(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"requirements/rocm.txt":    pinned,
		"docker/legacy/Dockerfile": "FROM a\nARG MOONCAKE_BRANCH\n",
		"docker/Dockerfile":        "FROM a\n# buildgate:ignore BG102 -- read by the nightly job\nARG MOONCAKE_REPO\n",
		".buildgate.yaml": `ignore:
  - rule: BG102
    path: docker/legacy/**
    reason: legacy image, retired with 2.0
    until: 2999-12-31
  - rule: source-build-stage
    path: "**"
    reason: nothing matches this
  - rule: BG103
    reason: expired exception
    until: 2020-01-01
`,
	}
	dir := writeTree(t, files)
	rep, r := lintJSON(t, dir)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Path+":"+strconv.Itoa(f.Line)+" "+f.Rule)
	}
	want := ".buildgate.yaml:6 BG003,.buildgate.yaml:9 BG004"
	if strings.Join(got, ",") != want || rep.Summary["suppressed"] != 2 {
		t.Errorf("got %v, %d suppressed; want %s, 2 suppressed\n%s", got, rep.Summary["suppressed"], want, r.stdout)
	}
	text := runBin(t, dir, "lint", "--root", ".", "--show-suppressed")
	for _, w := range []string{
		"docker/Dockerfile:3:5: suppressed error: `MOONCAKE_REPO` is a build argument",
		"(buildgate:ignore: read by the nightly job)",
		"docker/legacy/Dockerfile:2:5: suppressed error:",
		"(configuration: legacy image, retired with 2.0)",
		"2 findings: 0 errors, 1 warning, 1 note; 2 suppressed",
	} {
		if !strings.Contains(text.stdout, w) {
			t.Errorf("--show-suppressed lacks %q:\n%s", w, text.stdout)
		}
	}
	// SARIF for code scanning leaves them out (GitHub shows a suppressed
	// result as an open alert), counting them in the run's properties.
	doc, raw := lintSARIF(t, dir)
	validateSARIF(t, raw)
	if n := len(doc.Runs[0].Results); n != 2 || !strings.Contains(raw, `"suppressedNotIncluded": 2`) {
		t.Errorf("SARIF has %d results, want the 2 reported, and suppressedNotIncluded 2", n)
	}
	// --show-suppressed is for people: it never changes SARIF.
	if _, raw2 := lintSARIF(t, dir, "--show-suppressed"); raw2 != raw {
		t.Error("--show-suppressed changed the SARIF report")
	}
	doc, raw = lintSARIF(t, dir, "--sarif-include-suppressed")
	validateSARIF(t, raw)
	for _, w := range []string{
		`"suppressions": [
            {
              "kind": "inSource",
              "justification": "read by the nightly job"`,
		`"kind": "external",
              "justification": "legacy image, retired with 2.0"`,
	} {
		if !strings.Contains(raw, w) {
			t.Errorf("SARIF lacks %s", w)
		}
	}
	if n := len(doc.Runs[0].Results); n != 4 {
		t.Errorf("SARIF has %d results, want 4 (2 reported, 2 suppressed)", n)
	}
	// Only a whole-repository run reports config ignores that match nothing.
	rep, _ = lintJSON(t, dir, "docker/Dockerfile")
	for _, f := range rep.Findings {
		if f.Rule == "BG003" {
			t.Errorf("unused config ignore reported on a partial run: %+v", f)
		}
	}
	os.WriteFile(filepath.Join(dir, ".buildgate.yaml"), []byte("ignore:\n  - rule: BG999\n    reason: x\n"), 0o644)
	if r := runBin(t, dir, "lint", "--root", "."); r.code != 2 || !strings.Contains(r.stderr, ".buildgate.yaml:2: ignore: \"BG999\" is not a rule") {
		t.Errorf("unknown rule in ignore: exit %d %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, ".buildgate.yaml"), []byte("ignore:\n  - rule: BG101\n    until: tomorrow\n    reason: x\n"), 0o644)
	if r := runBin(t, dir, "lint", "--root", "."); r.code != 2 || !strings.Contains(r.stderr, ".buildgate.yaml:3: until \"tomorrow\": want a date") {
		t.Errorf("bad until: exit %d %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, ".buildgate.yaml"), []byte("ignore:\n  - rule: BG101\n"), 0o644)
	if r := runBin(t, dir, "lint", "--root", "."); r.code != 2 || !strings.Contains(r.stderr, ".buildgate.yaml:2: ignore BG101: a reason is required") {
		t.Errorf("no reason: exit %d %s", r.code, r.stderr)
	}
}
