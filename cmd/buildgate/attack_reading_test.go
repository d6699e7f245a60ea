package main

import (
	"strings"
	"testing"
)

// The second red team of issue 26 (cases 2, 3, 7, 8, 9 and 10 of its
// report): a source build in a file a command runs or builds under a
// spelling its program accepts, or in a script handed to a shell, is
// read; where buildgate cannot read it, that is a BG001. Each fixture is
// written here; none passes the gate.
func TestAttacksOnReading(t *testing.T) {
	t.Parallel()
	const sb = "git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install"
	const df = "FROM rocm/dev-ubuntu-22.04\nRUN " + sb + "\n"
	wf := func(env, run string) string {
		return "on: push\njobs:\n  b:\n    runs-on: x\n" + env + "    steps:\n      - run: " + run + "\n"
	}
	nest := sb
	for range 9 {
		nest = "bash -c '" + strings.ReplaceAll(nest, "'", `'\''`) + "'"
	}
	bg104 := []string{"BG104"}
	bg001 := []string{"BG001"}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"bash -eo pipefail FILE", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": wf("", "bash -eo pipefail ci/build-it")}, bg104},
		{"a script run by its path without ./", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": wf("", "ci/build-it")}, bg104},
		{"cat FILE | bash", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": wf("", "cat ci/build-it | bash")}, bg104},
		{"bash \"$S\" with S in the job's env", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": wf("    env:\n      S: ci/build-it\n", `bash "$S"`)}, bg104},
		{"docker --context x build -fFILE", map[string]string{"docker/rocm.img": df, ".github/workflows/ci.yml": wf("", "docker --context x build -fdocker/rocm.img .")}, bg104},
		{"docker buildx --builder b build -f=FILE", map[string]string{"docker/rocm.img": df, ".github/workflows/ci.yml": wf("", "docker buildx --builder b build -f=docker/rocm.img .")}, bg104},
		{"a GitLab include through an unknown variable", map[string]string{".gitlab-ci.yml": "include:\n  - local: ${CI_FILE}\n"}, bg001},
		{"docker build -f of a file read as a script", map[string]string{"ci/image.sh": df, ".github/workflows/ci.yml": wf("", "docker build -f ci/image.sh .")}, bg001},
		{"eval", map[string]string{"ci/b.sh": "eval '" + sb + "'\n"}, bg104},
		{"echo into sh", map[string]string{"ci/b.sh": "echo '" + sb + "' | sh\n"}, bg104},
		{"script -qec", map[string]string{"ci/b.sh": "script -qec '" + sb + "' /dev/null\n"}, bg104},
		{"9 levels of bash -c", map[string]string{"ci/b.sh": nest + "\n"}, bg001},
		{"51 lines mvdan/sh cannot parse, then an upload", map[string]string{
			"ci/gen.yml":              "steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=main -f docker/Dockerfile.rocm .\n",
			"ci/upload.sh":            strings.Repeat("x=$((echo a); (echo b))\n", 51) + "buildkite-agent pipeline upload ci/gen.yml\n",
			".buildkite/pipeline.yml": "steps:\n  - command: bash ci/upload.sh\n"}, bg001},
	}
	attacks := make([]attack, 0, len(cases))
	for _, c := range cases {
		attacks = append(attacks, attack{name: c.name, files: c.files, code: 1, stdout: c.want})
	}
	runAttacks(t, attacks)
}
