package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 17 (first part): buildgate fix applies the pin rules' fixes as
// byte-range edits, through the binary.
func TestFixPins(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt":  "\ufefftorch\r\nmooncake-transfer-engine-rocm>=0.3.9 # pinned\r\n",
		"requirements/other.txt": "mooncake-transfer-engine-rocm>=0.3.9  # buildgate:ignore BG202 -- kept for the old image\n",
		"docker/Dockerfile.rocm": "FROM rocm/x\nCOPY requirements/rocm.txt /r.txt\n",
	})
	rocm := filepath.Join(dir, "requirements", "rocm.txt")
	os.Chmod(rocm, 0o600)
	dockerBefore, _ := os.ReadFile(filepath.Join(dir, "docker", "Dockerfile.rocm"))
	otherBefore, _ := os.ReadFile(filepath.Join(dir, "requirements", "other.txt"))

	// --diff shows the change, writes nothing, exits 1; patch -p1 applies it.
	r := runBin(t, dir, "fix", "--root", ".", "--diff")
	if r.code != 1 || !strings.Contains(r.stdout, "-mooncake-transfer-engine-rocm>=0.3.9 # pinned\r\n+mooncake-transfer-engine-rocm>=0.3.13 # pinned\r\n") {
		t.Fatalf("--diff: exit %d\n%q\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(rocm); !strings.Contains(string(b), ">=0.3.9") {
		t.Error("--diff wrote the file")
	}
	if patch, err := exec.LookPath("patch"); err == nil {
		copyDir := t.TempDir()
		os.CopyFS(copyDir, os.DirFS(dir))
		cmd := exec.Command(patch, "-p1", "--quiet")
		cmd.Dir, cmd.Stdin = copyDir, strings.NewReader(r.stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("patch -p1: %v\n%s", err, out)
		}
	}
	// fix writes it: BOM, CR LF and mode kept; the suppressed finding and
	// the file without findings untouched; nothing left.
	r = runBin(t, dir, "fix", "--root", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "nothing left to fix") {
		t.Fatalf("fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(rocm)
	if string(b) != "\ufefftorch\r\nmooncake-transfer-engine-rocm>=0.3.13 # pinned\r\n" {
		t.Errorf("fixed file %q", b)
	}
	if st, _ := os.Stat(rocm); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "docker", "Dockerfile.rocm")); string(got) != string(dockerBefore) {
		t.Error("a file without a fix changed")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "requirements", "other.txt")); string(got) != string(otherBefore) {
		t.Error("a suppressed finding was fixed")
	}
	// Idempotent: nothing to show, nothing to do.
	if r = runBin(t, dir, "fix", "--root", ".", "--diff"); r.code != 0 || r.stdout != "" {
		t.Errorf("second --diff: exit %d %q", r.code, r.stdout)
	}
	if r = runBin(t, dir, "lint", "--root", "."); r.code != 0 {
		t.Errorf("lint after fix: exit %d\n%s", r.code, r.stdout)
	}
}

func TestFixCreatesTheMissingPinFile(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": "FROM rocm/x\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"})
	r := runBin(t, dir, "fix", "--root", ".")
	b, err := os.ReadFile(filepath.Join(dir, "requirements", "rocm.txt"))
	if r.code != 0 || err != nil || string(b) != "mooncake-transfer-engine-rocm >= 0.3.13\n" {
		t.Errorf("exit %d, %q, %v\n%s", r.code, b, err, r.stderr)
	}
}

// Findings without a fix are listed and the exit status is 1; --rule
// limits the fixes; a link is never written through.
func TestFixLeftovers(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt":  "mooncake-transfer-engine-rocm>=0.3.9\n",
		"docker/Dockerfile.rocm": "FROM rocm/x\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc && make -C /opt/mc && make app\n",
	})
	r := runBin(t, dir, "fix", "--root", ".", "--rule", "source-build-step")
	if r.code != 1 || !strings.Contains(r.stdout, "docker/Dockerfile.rocm:2:5: error:") || !strings.Contains(r.stdout, "(0 fixed, 2 remaining)") ||
		!strings.Contains(r.stdout, "(not fixed: no whole instruction of the source build to remove here") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "requirements", "rocm.txt")); string(b) != "mooncake-transfer-engine-rocm>=0.3.9\n" {
		t.Error("--rule source-build-step fixed BG202")
	}
	if r = runBin(t, dir, "fix", "--root", ".", "--rule", "nope"); r.code != 2 {
		t.Errorf("--rule nope: exit %d", r.code)
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "pins.txt"), []byte("mooncake-transfer-engine-rocm>=0.3.9\n"), 0o644)
	link := writeTree(t, map[string]string{"docker/Dockerfile.rocm": "FROM rocm/x\n"})
	os.MkdirAll(filepath.Join(link, "requirements"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "pins.txt"), filepath.Join(link, "requirements", "rocm.txt")); err != nil {
		t.Skip(err)
	}
	runBin(t, link, "fix", "--root", ".")
	if b, _ := os.ReadFile(filepath.Join(outside, "pins.txt")); string(b) != "mooncake-transfer-engine-rocm>=0.3.9\n" {
		t.Errorf("fix wrote through a link out of the root: %q", b)
	}
}

// A removal that would take a suppressed finding away is refused for the
// whole file; a link is skipped and the other files are still fixed
// (review of issue 17).
func TestFixSuppressedAndLinks(t *testing.T) {
	t.Parallel()
	df := "FROM rocm/x AS base\n\nFROM base AS mooncake_source\n" +
		"RUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake  # buildgate:ignore BG104 -- bisecting the old build\n\n" +
		"FROM base\nRUN echo\n"
	dir := writeTree(t, map[string]string{
		"docker/Dockerfile.rocm": df,
		"requirements/rocm.txt":  "numpy\n",
		"real.hcl":               "variable \"MOONCAKE_BRANCH\" {\n  default = \"\"\n}\n",
	})
	if err := os.Symlink("../real.hcl", filepath.Join(dir, "docker", "ci-rocm.hcl")); err != nil {
		t.Skip(err)
	}
	r := runBin(t, dir, "fix", "--root", ".")
	if b, _ := os.ReadFile(filepath.Join(dir, "docker", "Dockerfile.rocm")); string(b) != df {
		t.Errorf("the stage holding a suppressed finding was removed:\n%s", b)
	}
	if !strings.Contains(r.stderr, "whose BG104 finding is suppressed") || !strings.Contains(r.stderr, "docker/ci-rocm.hcl: not fixed: not a regular file") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "requirements", "rocm.txt")); !strings.Contains(string(b), "mooncake-transfer-engine-rocm >= 0.3.13") {
		t.Errorf("the other files were not fixed: %q", b)
	}
	if st, err := os.Lstat(filepath.Join(dir, "docker", "ci-rocm.hcl")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

// Third review of issue 17: SARIF offers no removal buildgate fix refuses
// (over a suppressed finding); a requirements file that was not read gets
// no pin line; a pin is never added after a continued line.
func TestFixThirdReview(t *testing.T) {
	t.Parallel()
	df := "FROM rocm/x AS base\n\nFROM base AS mooncake_source\n" +
		"# buildgate:ignore BG104 -- reviewed\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake\n\nFROM base\nRUN echo\n"
	dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": df, "requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13\n"})
	r := runBin(t, dir, "lint", "--root", ".", "--format", "sarif")
	if strings.Contains(r.stdout, `"fixes"`) {
		t.Errorf("SARIF offers a removal over a suppressed finding:\n%s", r.stdout)
	}
	big := "# " + strings.Repeat("x", 200) + "\nmooncake-transfer-engine-rocm >= 0.3.13\n"
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": big, "docker/Dockerfile.rocm": "FROM rocm/x\nCOPY requirements/rocm.txt /r.txt\n"})
	runBin(t, dir, "fix", "--root", ".", "--max-file-size", "100")
	if b, _ := os.ReadFile(filepath.Join(dir, "requirements", "rocm.txt")); string(b) != big {
		t.Errorf("a file that was not read was changed:\n%s", b)
	}
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": "numpy \\\n", "docker/Dockerfile.rocm": "FROM rocm/x\nCOPY requirements/rocm.txt /r.txt\n"})
	r = runBin(t, dir, "fix", "--root", ".")
	if b, _ := os.ReadFile(filepath.Join(dir, "requirements", "rocm.txt")); string(b) != "numpy \\\n" || !strings.Contains(r.stderr, "continuation backslash") {
		t.Errorf("pin added after a continued line: %q\n%s", b, r.stderr)
	}
}

// Fourth review of issue 17: a removal another file still needs is
// refused across files (a declined bake target still naming a stage, a
// script still naming a target, a suppressed bake variable still reading
// an exported one), bake files fixed together are idempotent, and a note
// left without a fix does not fail the run unless --fail-on asks.
func TestFixFourthReview(t *testing.T) {
	t.Parallel()
	const pin = "mooncake-transfer-engine-rocm >= 0.3.13\n"
	df := "FROM rocm/x AS base\n\nFROM base AS build_mooncake\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake\n\nFROM base\nRUN echo hi\n"
	bake := "target \"rocm\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  target     = \"build_mooncake\"\n}\n"
	script := "#!/bin/bash\ndocker buildx bake -f docker/docker-bake.hcl rocm\n"
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": pin, "docker/Dockerfile.rocm": df, "docker/docker-bake.hcl": bake, "scripts/build.sh": script})
	r := runBin(t, dir, "fix", "--root", ".")
	for rel, want := range map[string]string{"docker/Dockerfile.rocm": df, "docker/docker-bake.hcl": bake, "scripts/build.sh": script} {
		if b, _ := os.ReadFile(filepath.Join(dir, rel)); string(b) != want {
			t.Errorf("%s changed though what it removes is still named:\n%s", rel, b)
		}
	}
	if r.code != 1 || !strings.Contains(r.stdout, "scripts/build.sh would still name the target rocm") ||
		!strings.Contains(r.stdout, "docker/docker-bake.hcl would still name the stage build_mooncake") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	sh := "#!/bin/bash\nexport MOONCAKE_BRANCH=\"v2\"\ndocker buildx bake app\n"
	dir = writeTree(t, map[string]string{
		"requirements/rocm.txt":  pin,
		"docker/docker-bake.hcl": "# buildgate:ignore BG102 -- the nightly job\nvariable \"MOONCAKE_BRANCH\" {\n  default = \"\"\n}\n\ntarget \"app\" {\n  dockerfile = \"docker/Dockerfile\"\n}\n",
		"docker/ci.hcl":          "group \"default\" {\n  targets = [\n    \"app\",\n    \"mooncake-rocm-ci\",\n  ]\n}\n",
		"docker/mc.hcl":          "target \"mooncake-rocm-ci\" {\n  dockerfile = \"docker/Dockerfile\"\n}\n",
		"scripts/build.sh":       sh,
	})
	r = runBin(t, dir, "fix", "--root", ".")
	if b, _ := os.ReadFile(filepath.Join(dir, "scripts/build.sh")); string(b) != sh || !strings.Contains(r.stdout, "docker/docker-bake.hcl would still name the variable MOONCAKE_BRANCH") {
		t.Errorf("an export a kept bake variable reads was removed: %q\n%s", b, r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "docker/mc.hcl")); len(b) != 0 {
		t.Errorf("the target another fixed bake file stopped naming stayed: %q\n%s%s", b, r.stdout, r.stderr)
	}
	if r = runBin(t, dir, "fix", "--root", ".", "--diff"); r.code != 0 || r.stdout != "" {
		t.Errorf("second run: exit %d\n%s", r.code, r.stdout)
	}

	dir = writeTree(t, map[string]string{"requirements/rocm.txt": pin + "numpy  # buildgate:ignore BG202 -- stale\n", "docker/Dockerfile.rocm": "FROM rocm/x\nCOPY requirements/rocm.txt /r.txt\n"})
	if r = runBin(t, dir, "fix", "--root", "."); r.code != 0 || !strings.Contains(r.stdout, "BG003") {
		t.Errorf("a note left: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runBin(t, dir, "fix", "--root", ".", "--fail-on", "note"); r.code != 1 {
		t.Errorf("--fail-on note: exit %d", r.code)
	}
}

// Fifth review of issue 17 (the cross-file check): what a removal takes
// away is looked for in the whole tree, in words as the file's own syntax
// has them, and a file that cannot be read keeps it.
func TestFixFifthReview(t *testing.T) {
	t.Parallel()
	const pin = "mooncake-transfer-engine-rocm >= 0.3.13\n"
	df := "FROM rocm/x AS base\n\nFROM base AS build_mooncake\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake\n\nFROM base AS final\nRUN echo hi\n"
	target := "#!/bin/bash\ndocker build --target build_mooncake -f docker/Dockerfile.rocm .\n"
	bakeVar := "variable \"MOONCAKE_BRANCH\" {\n  default = \"v0.3.13\"\n}\n\ntarget \"app\" {\n  dockerfile = \"docker/Dockerfile\"\n}\n"
	exportSh := "#!/bin/bash\nexport MOONCAKE_BRANCH=\"v0.3.13\"\necho ready\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		kept  string // the file that must stay as it was
		fixed string // a file that must change ("" for none)
	}{
		{"a script the configuration excludes", map[string]string{"docker/Dockerfile.rocm": df, "scripts/build.sh": target, ".buildgate.yaml": "exclude: [\"scripts/**\"]\n"}, nil, "docker/Dockerfile.rocm", ""},
		{"a run given one file", map[string]string{"docker/Dockerfile.rocm": df, "scripts/build.sh": target}, []string{"docker/Dockerfile.rocm"}, "docker/Dockerfile.rocm", ""},
		{"a compose file in a directory without bake files", map[string]string{"docker/Dockerfile.rocm": df, "deploy/docker-compose.yml": "services:\n  a:\n    build:\n      target: build_mooncake\n"}, nil, "docker/Dockerfile.rocm", ""},
		{"bake JSON reading a bake variable", map[string]string{"docker-bake.hcl": bakeVar, "docker-bake.json": `{"target":{"app":{"args":{"MC":"${MOONCAKE_BRANCH}"}}}}`}, nil, "docker-bake.hcl", ""},
		{"--set NAME.platform", map[string]string{"docker-bake.hcl": "target \"mooncake-rocm-ci\" {\n  dockerfile = \"docker/Dockerfile\"\n}\n", "scripts/ci.sh": "#!/bin/bash\ndocker buildx bake --set \"mooncake-rocm-ci.platform=linux/amd64\" default\n"}, nil, "docker-bake.hcl", ""},
		{"$NAME.tar.gz in another script", map[string]string{"scripts/env.sh": exportSh, "scripts/use.sh": "#!/bin/bash\nsource scripts/env.sh\ncurl -O \"https://x/$MOONCAKE_BRANCH.tar.gz\"\n"}, nil, "scripts/env.sh", ""},
		{"a prefix listing in another script", map[string]string{"scripts/env.sh": exportSh, "scripts/show.sh": "#!/bin/bash\nfor v in \"${!MOONCAKE_@}\"; do echo \"$v\"; done\n"}, nil, "scripts/env.sh", ""},
		{"a matrix target", map[string]string{"docker-bake.hcl": "target \"mooncake\" {\n  name = \"mooncake-${v}\"\n  matrix = {\n    v = [\"ci\", \"release\"]\n  }\n  dockerfile = \"docker/Dockerfile\"\n}\n", "scripts/ci.sh": "#!/bin/bash\ndocker buildx bake mooncake-ci\n"}, nil, "docker-bake.hcl", ""},
		{"a bake file nested past the bounds that names it", map[string]string{"docker/Dockerfile.rocm": df, "docker/deep.hcl": "y = \"build_mooncake\"\nx = " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"}, nil, "docker/Dockerfile.rocm", ""},
		{"a bake file nested past the bounds that cannot name it", map[string]string{"docker/Dockerfile.rocm": df, "docker/deep.hcl": "x = " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"}, nil, "", "docker/Dockerfile.rocm"},
		{"a trailing comment does not keep it", map[string]string{"docker/Dockerfile.rocm": df, "scripts/ci.sh": "#!/bin/bash\ndocker buildx bake -f docker/docker-bake.hcl default  # build_mooncake moved to the wheel\n", "docker/docker-bake.hcl": "target \"default\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  target = \"final\" # not build_mooncake any more\n}\n"}, nil, "", "docker/Dockerfile.rocm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fixKeeps(t, c.files, c.args, c.kept, c.fixed)
		})
	}
	// A file the check cannot read (a link out of the root) keeps it.
	dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": df, "requirements/rocm.txt": pin})
	outside := filepath.Join(t.TempDir(), "build.sh")
	os.WriteFile(outside, []byte(target), 0o644)
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	if err := os.Symlink(outside, filepath.Join(dir, "scripts", "build.sh")); err != nil {
		t.Skip(err)
	}
	r := runBin(t, dir, "fix", "--root", ".")
	if b, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile.rocm")); string(b) != df || !strings.Contains(r.stdout, "could not be read") {
		t.Errorf("a removal past an unreadable file:\n%s%s", r.stdout, r.stderr)
	}
}

// Sixth review of issue 17: more places that name what a removal takes
// away, and fewer that only seem to.
func TestFixSixthReview(t *testing.T) {
	t.Parallel()
	const pin = "mooncake-transfer-engine-rocm >= 0.3.13\n"
	df := "FROM rocm/x AS base\n\nFROM base AS build_mooncake\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake\n\nFROM base AS final\nRUN echo hi\n"
	exportSh := "#!/bin/bash\nexport MOONCAKE_BRANCH=\"v0.3.13\"\necho ready\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		kept  string // the file that must stay as it was
		fixed string // a file that must change ("" for none)
	}{
		{"a compose override file", map[string]string{"docker/Dockerfile.rocm": df, "docker-compose.override.yml": "services:\n  a:\n    build: {context: ., dockerfile: docker/Dockerfile.rocm, target: build_mooncake}\n"}, "docker/Dockerfile.rocm", ""},
		{"a CI workflow", map[string]string{"docker/Dockerfile.rocm": df, ".github/workflows/ci.yml": "jobs:\n  b:\n    steps:\n      - run: docker build --target build_mooncake -f docker/Dockerfile.rocm .\n"}, "docker/Dockerfile.rocm", ""},
		{"the last stage, which a build without --target builds", map[string]string{"docker/Dockerfile.wheels": "FROM rocm/dev AS base\nFROM base AS build_nixl\nRUN pip wheel nixl -w /wheels\nFROM base AS build_mooncake\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake && cd /opt/mooncake && pip wheel . -w /wheels\n"}, "docker/Dockerfile.wheels", ""},
		{"a requirements file reading an export", map[string]string{"scripts/env.sh": exportSh, "requirements/extra.txt": "--extra-index-url https://pypi.example/${MOONCAKE_BRANCH}/simple\n"}, "scripts/env.sh", ""},
		{"compgen -A variable", map[string]string{"scripts/env.sh": exportSh, "scripts/show.sh": "#!/bin/bash\nsource scripts/env.sh\nfor v in $(compgen -A variable MOONCAKE_); do echo \"$v\"; done\n"}, "scripts/env.sh", ""},
		{"env | grep", map[string]string{"scripts/env.sh": exportSh, "scripts/show.sh": "#!/bin/bash\nenv | grep ^MOONCAKE_\n"}, "scripts/env.sh", ""},
		{"a word split by quotes", map[string]string{"docker/Dockerfile.rocm": df, "scripts/ci.sh": "#!/bin/bash\ndocker build --target build_\"moon\"cake .\n"}, "docker/Dockerfile.rocm", ""},
		{"a variable named like the stage does not keep it", map[string]string{"docker/Dockerfile.rocm": df, "scripts/b.sh": "#!/bin/bash\nif [ \"${BUILD_MOONCAKE:-0}\" = 1 ]; then echo yes; fi\ndocker build --build-arg BUILD_MOONCAKE=0 .\n", "docker-bake.hcl": "variable \"BUILD_MOONCAKE\" {\n  default = \"0\"\n}\ntarget \"app\" {\n  args = { BUILD_MOONCAKE = BUILD_MOONCAKE }\n}\n"}, "", "docker/Dockerfile.rocm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fixKeeps(t, c.files, nil, c.kept, c.fixed)
		})
	}
	// A link to a script the same run fixes is read as fixed: one run.
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt": pin,
		"scripts/env.sh":        "#!/bin/bash\nexport EXTRA_TARGETS=\"mooncake-rocm-ci\"\necho ready\n",
		"scripts/build.sh":      "#!/bin/bash\ncase \"$1\" in\n  app)\n    echo app\n    ;;\n  mooncake-rocm-ci)\n    echo \"${EXTRA_TARGETS}\"\n    ;;\nesac\n",
	})
	os.MkdirAll(filepath.Join(dir, "ci"), 0o755)
	if err := os.Symlink("../scripts/build.sh", filepath.Join(dir, "ci", "build.sh")); err != nil {
		t.Skip(err)
	}
	runBin(t, dir, "fix", "--root", ".")
	if r := runBin(t, dir, "fix", "--root", ".", "--diff"); r.stdout != "" {
		t.Errorf("a second run still changes:\n%s%s", r.stdout, r.stderr)
	}
	// An if whose branch would be left empty: the reason says so.
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": pin,
		"scripts/ci.sh": "#!/bin/bash\nif [[ -n \"${MOONCAKE_BRANCH:-}\" ]]; then\n  echo \"mc ${MOONCAKE_BRANCH}\"\nelse\n  echo \"no mc\"\nfi\n"})
	if r := runBin(t, dir, "fix", "--root", "."); !strings.Contains(r.stdout, "would leave the body of an if") {
		t.Errorf("reason:\n%s%s", r.stdout, r.stderr)
	}
}

// Seventh review of issue 17: names bash builds (brace expansion, a word
// around an expansion) and a stage an ARG default names.
func TestFixSeventhReview(t *testing.T) {
	t.Parallel()
	bake := "target \"nixl-rocm-ci\" {\n  target = \"build_nixl\"\n}\n\ntarget \"mooncake-rocm-ci\" {\n  target = \"build_mooncake\"\n}\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		kept  string
	}{
		{"brace expansion", map[string]string{"docker/ci.hcl": bake, "scripts/deps.sh": "#!/bin/bash\ndocker buildx bake -f docker/ci.hcl {nixl,mooncake}-rocm-ci\n"}, "docker/ci.hcl"},
		{"a name built around a loop variable", map[string]string{"docker/ci.hcl": bake, "scripts/deps.sh": "#!/bin/bash\nfor dep in nixl mooncake; do docker buildx bake -f docker/ci.hcl \"${dep}-rocm-ci\"; done\n"}, "docker/ci.hcl"},
		{"an ARG default naming a removed stage", map[string]string{"docker/Dockerfile.rocm": "ARG WHEEL_STAGE=export_mooncake\nFROM rocm/dev AS base\n\nFROM base AS build_mooncake\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake && cd /opt/mooncake && pip wheel . -w /wheels\n\nFROM scratch AS export_mooncake\nCOPY --from=build_mooncake /wheels /\n\nFROM ${WHEEL_STAGE} AS wheels\n\nFROM base AS final\nCOPY --from=wheels / /wheels\nRUN echo hi\n"}, "docker/Dockerfile.rocm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fixKeeps(t, c.files, nil, c.kept, "")
		})
	}
}

// fixKeeps runs fix over a tree (with the pin in place) and checks that
// kept stays as it was and fixed (when given) changed; a run may not fail.
func fixKeeps(t *testing.T, files map[string]string, args []string, kept, fixed string) {
	t.Helper()
	files["requirements/rocm.txt"] = "mooncake-transfer-engine-rocm >= 0.3.13\n"
	dir := writeTree(t, files)
	r := runBin(t, dir, append([]string{"fix", "--root", "."}, args...)...)
	if r.code == 2 {
		t.Fatalf("exit 2\n%s%s", r.stdout, r.stderr)
	}
	if kept != "" {
		if b, _ := os.ReadFile(filepath.Join(dir, kept)); string(b) != files[kept] {
			t.Errorf("%s changed:\n%s\n%s%s", kept, b, r.stdout, r.stderr)
		}
	}
	if fixed != "" {
		if b, _ := os.ReadFile(filepath.Join(dir, fixed)); string(b) == files[fixed] {
			t.Errorf("%s not fixed:\n%s%s", fixed, r.stdout, r.stderr)
		}
	}
}
