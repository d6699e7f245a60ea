package lint

import (
	"context"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/internal/testfs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/buildgate/buildgate/config"
)

var (
	engOnce sync.Once
	eng     *Policies
	engErr  error
)

func builtin(t testing.TB) *Policies {
	t.Helper()
	engOnce.Do(func() {
		eng, engErr = CompilePolicies(context.Background(), PolicyOptions{Version: "test"})
	})
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfs.Tree(t, files)
}

func lintDir(t *testing.T, dir string) []finding.Finding {
	t.Helper()
	out, err := Run(context.Background(), Options{Root: dir, Paths: []string{dir}, Config: config.Default(), Policies: builtin(t)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Findings
}

// TestPinTable is the pin rules' contract: one requirements/rocm.txt per
// case (plus any included files), and the rules that must fire, each with
// the line it must point at.
func TestPinTable(t *testing.T) {
	const pkg = "mooncake-transfer-engine-rocm"
	cases := []struct {
		name  string
		rocm  string
		extra map[string]string
		want  string // "BG202@1 BG204@2", empty for a clean file
	}{
		// Specifiers that hold the minimum.
		{"exact minimum", pkg + " >= 0.3.13\n", nil, ""},
		{"no spaces", pkg + ">=0.3.13\n", nil, ""},
		{"pinned exactly", pkg + "==0.3.13\n", nil, ""},
		{"upper bound too", pkg + ">=0.3.13,<0.4\n", nil, ""},
		{"compatible release at minimum", pkg + "~=0.3.13\n", nil, ""},
		{"newer minor", pkg + ">=0.4\n", nil, ""},
		{"exclusive above", pkg + ">0.3.13\n", nil, ""},
		{"post release of minimum", pkg + ">=0.3.13.post1\n", nil, ""},
		{"arbitrary equality at minimum", pkg + "===0.3.13\n", nil, ""},
		{"zero padding", pkg + ">=0.3.13.0\n", nil, ""},
		{"epoch", pkg + ">=1!0.1\n", nil, ""},
		{"wildcard above", pkg + "==0.4.*\n", nil, ""},
		// String-compare traps and specifiers that admit less.
		{"string compare trap", pkg + ">=0.3.9\n", nil, "BG202@1"},
		{"exclusive one below admits its patch releases", pkg + ">0.3.12\n", nil, "BG202@1"},
		{"wildcard admits 0.3.0", pkg + "==0.3.*\n", nil, "BG202@1"},
		{"compatible release below", pkg + "~=0.3.0\n", nil, "BG202@1"},
		{"compatible release two segments", pkg + "~=0.3\n", nil, "BG202@1"},
		{"pre-release of minimum", pkg + ">=0.3.13rc1\n", nil, "BG202@1"},
		{"dev release of minimum", pkg + ">=0.3.13.dev0\n", nil, "BG202@1"},
		{"not-equal only", pkg + "!=0.3.12\n", nil, "BG202@1"},
		{"upper bound only", pkg + "<=0.3.13\n", nil, "BG202@1"},
		{"arbitrary equality below", pkg + "===0.3.12\n", nil, "BG202@1"},
		{"arbitrary equality not a version", pkg + "===latest\n", nil, "BG202@1"},
		{"unpinned", pkg + "\n", nil, "BG202@1"},
		{"unpinned with extras", pkg + "[store]\n", nil, "BG202@1"},
		{"epoch zero explicit below", pkg + ">=0!0.3.12\n", nil, "BG202@1"},
		{"local version of an older release", pkg + "==0.3.12+rocm6.4\n", nil, "BG202@1 BG203@1"},
		// Markers, extras, hashes, continuations, line endings.
		{"marker", pkg + ">=0.3.13; platform_machine == \"x86_64\"\n", nil, ""},
		{"marker with low pin", pkg + ">=0.3.9 ; python_version >= \"3.10\"\n", nil, "BG202@1"},
		{"extras", pkg + "[store]>=0.3.13\n", nil, ""},
		{"hash", pkg + "==0.3.13 --hash=sha256:" + strings.Repeat("a", 64) + "\n", nil, ""},
		{"continuation", "numpy\n" + pkg + " \\\n    >=0.3.9 \\\n    --hash=sha256:" + strings.Repeat("b", 64) + "\n", nil, "BG202@3"},
		{"CRLF", "numpy\r\n" + pkg + " >= 0.3.13\r\n", nil, ""},
		{"CRLF low", "numpy\r\n" + pkg + " >= 0.3.12\r\n", nil, "BG202@2"},
		{"inline comment", pkg + " >= 0.3.13  # published wheel\n", nil, ""},
		// Missing, commented out, spelled differently.
		{"commented-out pin", "numpy\n# " + pkg + " >= 0.3.13\n", nil, "BG201@1"},
		{"empty file", "", nil, "BG201@1"},
		{"name spelling", "Mooncake_Transfer.Engine-ROCm>=0.3.13\n", nil, ""},
		{"name spelling low", "MOONCAKE-TRANSFER-ENGINE-ROCM>=0.3.1\n", nil, "BG202@1"},
		{"cuda variant instead", "mooncake-transfer-engine>=0.3.13\n", nil, "BG201@1 BG204@1"},
		{"cuda13 variant beside the pin", pkg + ">=0.3.13\nmooncake-transfer-engine-cuda13\n", nil, "BG204@2"},
		{"similar name is not the package", "mooncake-transfer-engine-rocm-extra>=0.3.13\n", nil, "BG201@1"},
		// Includes.
		{"pin in -r include", "-r common.txt\n", map[string]string{"requirements/common.txt": pkg + ">=0.3.13\n"}, ""},
		{"low pin in -r include", "-r common.txt\n", map[string]string{"requirements/common.txt": "numpy\n" + pkg + ">=0.3.9\n"}, "BG202@2:requirements/common.txt"},
		{"pin only in -c constraints", "-c constraints.txt\n", map[string]string{"requirements/constraints.txt": pkg + ">=0.3.13\n"}, "BG201@1"},
		{"missing include is not an error", "-r common.txt\n" + pkg + ">=0.3.13\n", nil, ""},
		{"include cycle", "-r rocm.txt\n" + pkg + ">=0.3.13\n", nil, "BG001@1"},
		// Not from the index.
		{"VCS URL", "git+https://github.com/kvcache-ai/Mooncake.git@v0.3.13#egg=" + pkg + "\n", nil, "BG203@1"},
		{"direct URL", pkg + " @ https://example.com/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl\n", nil, "BG203@1"},
		{"local wheel", "./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl\n", nil, "BG203@1"},
		{"editable checkout", "-e git+https://github.com/kvcache-ai/Mooncake.git#egg=" + pkg + "\n", nil, "BG203@1"},
		// Unreadable specifier.
		{"invalid specifier", pkg + " >= 0.3.13 abc\n", nil, "BG001@1 BG201@1"},
	}
	if len(cases) < 30 {
		t.Fatalf("the table needs at least 30 lines, has %d", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"requirements/rocm.txt": tc.rocm}
			for k, v := range tc.extra {
				files[k] = v
			}
			var got []string
			for _, f := range lintDir(t, writeFiles(t, files)) {
				s := f.Rule + "@" + strconv.Itoa(f.Pos.Line)
				if f.Path != "requirements/rocm.txt" {
					s += ":" + f.Path
				}
				got = append(got, s)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%q: got %q, want %q", tc.rocm, strings.Join(got, " "), tc.want)
			}
		})
	}
}
