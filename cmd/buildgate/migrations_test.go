package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestRealMigrations runs each configuration of examples/migrations as a
// new user would, on the fixtures written for it in
// testdata/migrations (each names the upstream file and commits it is
// modelled on; the figures on the fetched snapshots are in
// examples/migrations/README.md): the before-state fails with every
// source-build element found, the after-state is clean, and `buildgate
// fix` turns the before-state into the after-state up to comments, blank
// lines and how the package's pin is spelled (a fix writes `pkg>=min`
// where the project wrote `pkg==min`). byHand are the words of the
// after-state no fix can know: a distribution's package name, an extra
// of the project's own, a pin where no requirements file is configured.
func TestRealMigrations(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		example, fixture string
		packages         []string
		before           []string // rule:path:line of every finding
		unsafe           bool     // the removal is an unsafe fix
		byHand           []string
		// fixAdds are words the fix writes where the project chose
		// another place (the image keeps installing the package where
		// it installed its own wheel).
		fixAdds []string
	}{
		{
			example: "axolotl-flash-attn", fixture: "axolotl-flash-attn", packages: []string{"flash-attn"},
			// The stage named after the package, its clone, checkout and
			// two wheel builds, the two COPYs of its wheels, their install
			// among deepspeed's, the pin requirements.txt lacks.
			before: []string{"BG101:docker/Dockerfile-base:9", "BG104:docker/Dockerfile-base:12", "BG104:docker/Dockerfile-base:14",
				"BG104:docker/Dockerfile-base:15", "BG104:docker/Dockerfile-base:17", "BG101:docker/Dockerfile-base:26",
				"BG101:docker/Dockerfile-base:27", "BG203:docker/Dockerfile-base:28", "BG201:requirements.txt:1"},
			// axolotl installs flash-attn in the downstream image
			// (docker/Dockerfile's `pip install -e .[flash-attn]`),
			// which buildgate cannot know: it keeps this image
			// installing it, the published wheel for the built one.
			fixAdds: []string{` "flash-attn>=2.0.8"`},
		},
		{
			example: "refact-vllm", fixture: "refact-vllm", packages: []string{"vllm"},
			// pip installs the fork's branch: built from source.
			before: []string{"BG104:refact-server/Dockerfile.base:8"},
		},
		{
			example: "timescaledb-pgvector", fixture: "timescaledb-pgvector", packages: []string{"pgvector"},
			// The ARG, the test of it, the clone, checkout and make
			// install, the record of the version in the image.
			before: []string{"BG102:Dockerfile:14", "BG102:Dockerfile:16", "BG104:Dockerfile:17", "BG102:Dockerfile:19",
				"BG104:Dockerfile:19", "BG104:Dockerfile:21", "BG102:Dockerfile:26"},
			byHand: []string{" postgresql-${pg}-pgvector"},
		},
		{
			example: "tgi-marlin-kernels", fixture: "tgi-marlin", packages: []string{"marlin-kernels"},
			// The stage and the COPY of its output into site-packages,
			// which a later ENV names a path under: an unsafe removal.
			before: []string{"BG101:Dockerfile:9", "BG101:Dockerfile:20"},
			unsafe: true,
			byHand: []string{", marlin"},
		},
		{
			example: "openllm-vllm-autogptq", fixture: "openllm-autogptq", packages: []string{"vllm", "auto-gptq"},
			// Both builder stages with their own COMMIT_HASH, clones,
			// checkouts and builds in heredocs, and their COPYs; nothing
			// of the flash-attention stage.
			before: []string{"BG101:Dockerfile:8", "BG102:Dockerfile:9", "BG102:Dockerfile:10", "BG104:Dockerfile:13",
				"BG102:Dockerfile:14", "BG104:Dockerfile:14", "BG104:Dockerfile:15", "BG101:Dockerfile:28", "BG102:Dockerfile:29",
				"BG102:Dockerfile:30", "BG104:Dockerfile:33", "BG102:Dockerfile:34", "BG104:Dockerfile:34", "BG104:Dockerfile:35",
				"BG101:Dockerfile:40", "BG101:Dockerfile:44"},
			byHand: []string{` "vllm>=0.1.4" "auto-gptq[triton]"`},
		},
		{
			example: "podman-cni-plugins", fixture: "podman-cni", packages: []string{"containernetworking-plugins"},
			// The commit's ENV and its read, the clone, the build script
			// and the copy of what it built.
			before: []string{"BG102:Dockerfile.fedora:8", "BG104:Dockerfile.fedora:11", "BG102:Dockerfile.fedora:13",
				"BG104:Dockerfile.fedora:13", "BG104:Dockerfile.fedora:14", "BG104:Dockerfile.fedora:16"},
			byHand: []string{" containernetworking-plugins"},
		},
	} {
		t.Run(c.example, func(t *testing.T) {
			t.Parallel()
			cfg := mustAbs(t, filepath.Join("../../examples/migrations", c.example, ".buildgate.yaml"))
			fixture := mustAbs(t, filepath.Join("../../testdata/migrations", c.fixture))
			rep, res := lintJSON(t, filepath.Join(fixture, "before"), "--config", cfg)
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Rule+":"+f.Path+":"+itoa(f.Line))
			}
			if res.code != 1 || !sameSet(got, c.before) {
				t.Errorf("before-state: exit %d\n got %v\nwant %v", res.code, sortedSet(got), sortedSet(c.before))
			}
			rep, res = lintJSON(t, filepath.Join(fixture, "after"), "--config", cfg)
			if res.code != 0 || len(rep.Findings) != 0 {
				t.Errorf("after-state: exit %d, %+v", res.code, rep.Findings)
			}
			work := t.TempDir()
			if err := os.CopyFS(work, os.DirFS(filepath.Join(fixture, "before"))); err != nil {
				t.Fatal(err)
			}
			args := []string{"fix", "--root", ".", "--config", cfg}
			if c.unsafe {
				if r := runBin(t, work, args...); r.code == 0 || !strings.Contains(r.stdout, "more with --unsafe-fixes") {
					t.Errorf("a safe fix: exit %d, want the removal listed as unsafe\n%s%s", r.code, r.stdout, r.stderr)
				}
				args = append(args, "--unsafe-fixes")
			}
			if r := runBin(t, work, args...); r.code != 0 {
				t.Errorf("fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			compareTrees(t, work, filepath.Join(fixture, "after"), c.packages, c.byHand, c.fixAdds)
		})
	}
}

// compareTrees compares the build files of two trees the way
// TestRealMigrations says.
func compareTrees(t *testing.T, fixed, after string, packages, byHand, fixAdds []string) {
	t.Helper()
	err := filepath.WalkDir(after, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(after, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(fixed, rel))
		if err != nil {
			t.Errorf("%s: not in the fixed tree: %v", rel, err)
			return nil
		}
		w := uncommented(string(want))
		for _, h := range byHand {
			w = strings.Replace(w, h, "", 1)
		}
		g := string(got)
		for _, a := range fixAdds {
			g = strings.Replace(g, a, "", 1)
		}
		if g, w := essential(g, packages), essential(w, packages); g != w {
			t.Errorf("%s: the fixed file differs from the after-state\n--- fixed\n%s\n--- after\n%s", rel, g, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// uncommented is a build file's text without comment and blank lines.
func uncommented(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// essential is a build file's text without comments and blank lines, the
// packages' pins spelled as their bare names.
func essential(text string, packages []string) string {
	var out []string
	res := make([]*regexp.Regexp, len(packages))
	for i, p := range packages {
		res[i] = pinRe(p)
	}
	for _, l := range strings.Split(uncommented(text), "\n") {
		for i, p := range packages {
			l = res[i].ReplaceAllString(l, p)
		}
		out = append(out, strings.TrimRight(l, " "))
	}
	return strings.Join(out, "\n")
}

func pinRe(pkg string) *regexp.Regexp {
	return regexp.MustCompile(`"?` + regexp.QuoteMeta(pkg) + `\s*(==|>=|~=)\s*v?[0-9][0-9A-Za-z.+]*"?`)
}

func sameSet(a, b []string) bool {
	return strings.Join(sortedSet(a), " ") == strings.Join(sortedSet(b), " ")
}

func sortedSet(a []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range a {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Issue 32: vLLM's other ROCm source builds, configured by hand on the
// real docker/Dockerfile.rocm_base (../shared), keep their findings: the
// flash-attention stage build_fa and the aiter stage with their ARGs,
// clones, builds, mounts, and the versions the final stage records; the
// package-named stage rule, the stage scope of build arguments and the
// copy out of a clone change nothing there.
func TestVLLMOtherROCmMigrations(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t, "vllm/latest")
	for _, c := range []struct {
		name, config string
		want         map[string]int
	}{
		{"flash-attn", "migrations:\n  - package: flash-attn\n    minimum: \"2.7.0\"\n    requirements: [requirements/rocm.txt]\n    names: [fa]\n    build_args: [FA_BRANCH, FA_REPO]\n    repositories: [github.com/Dao-AILab/flash-attention, github.com/ROCm/flash-attention]\n",
			map[string]int{"BG101": 3, "BG102": 10, "BG104": 4, "BG201": 2}},
		{"aiter", "migrations:\n  - package: amd-aiter\n    minimum: \"0.1.5\"\n    requirements: [requirements/rocm.txt]\n    names: [aiter]\n    build_args: [AITER_BRANCH, AITER_REPO]\n    repositories: [github.com/ROCm/aiter]\n",
			map[string]int{"BG101": 3, "BG102": 10, "BG104": 3, "BG201": 2}},
	} {
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, res := lintJSON(t, dir, "--config", cfg, "docker/Dockerfile.rocm_base")
		got := map[string]int{}
		for _, f := range rep.Findings {
			got[f.Rule]++
		}
		if res.code != 1 || len(got) != len(c.want) {
			t.Errorf("%s: exit %d, %v, want %v", c.name, res.code, got, c.want)
		}
		for r, n := range c.want {
			if got[r] != n {
				t.Errorf("%s: %d %s, want %d (%v)", c.name, got[r], r, n, got)
			}
		}
	}
}

// Issue 32: a triton migration on vLLM's tree says nothing of
// TRITON_CACHE_DIR, triton's runtime kernel cache that the AMD test
// script sets for the tests it runs: no build declares or passes it.
func TestTritonRuntimeCacheIsNoBuildKey(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t, "vllm/latest")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("migrations:\n  - package: triton\n    minimum: \"3.1.0\"\n    requirements: [requirements/rocm.txt]\n    names: [triton]\n    repositories: [github.com/triton-lang/triton, github.com/ROCm/triton]\n"), 0o644)
	rep, _ := lintJSON(t, dir, "--config", cfg)
	stages := 0
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "TRITON_CACHE_DIR") || f.Rule == "BG103" {
			t.Errorf("a runtime cache reported: %+v", f)
		}
		if f.Rule == "BG101" {
			stages++
		}
	}
	if stages == 0 {
		t.Errorf("the triton stages are not found: %+v", rep.Findings)
	}
}
