package main

import (
	"strings"
	"testing"
)

// The second and third red teams of issue 26 (the second's cases 2, 3,
// 7, 8, 9 and 10, the third's 1 to 5, 7, 9 and 10): a source build in a file a command runs or builds under a
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
		// The third red team of issue 26.
		{"sudo -E timeout 1h in a RUN", map[string]string{"docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04\nRUN sudo -E timeout 1h " + sb + "\n"}, bg104},
		{"build-push-action file:", map[string]string{"ci/img": df, ".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - uses: docker/build-push-action@v6\n        with:\n          file: ci/img\n"}, bg104},
		{"a bake target's dockerfile", map[string]string{"ci/img": df, "docker-bake.hcl": "target \"default\" {\n  context = \".\"\n  dockerfile = \"ci/img\"\n}\n"}, bg104},
		{"docker build - < FILE", map[string]string{"ci/img": df, ".github/workflows/ci.yml": wf("", "docker build - < ci/img")}, bg104},
		{"a Buildkite repository hook", map[string]string{".buildkite/hooks/pre-command": sb + "\n", ".buildkite/pipeline.yml": "steps:\n  - command: make\n"}, bg104},
		{"a Dockerfile's copied script, run", map[string]string{"ci/mc": sb + "\n", "docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04\nCOPY ci/mc /mc\nRUN sh /mc\n"}, bg104},
		{"working-directory", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: ./build-it\n        working-directory: ci\n"}, bg104},
		{"cd DIR && ./FILE", map[string]string{"ci/build-it": sb + "\n", ".github/workflows/ci.yml": wf("", "cd ci && ./build-it")}, bg104},
		{"a Containerfile", map[string]string{"ci/ctx/Containerfile": df}, bg104},
		{"a GitLab self-include by namespace and name", map[string]string{"ci/x.yml": "b:\n  script:\n    - " + sb + "\n",
			".gitlab-ci.yml": "include:\n  - project: ${CI_PROJECT_NAMESPACE}/${CI_PROJECT_NAME}\n    file: ci/x.yml\n"}, bg104},
		// The fourth red team of issue 26.
		{"a pwsh step's call operator", map[string]string{".github/workflows/ci.yml": wf("", "& git clone https://github.com/kvcache-ai/Mooncake.git; & make install\n        shell: pwsh")}, bg001},
		{"a path from $GITHUB_WORKSPACE", map[string]string{"ci/step.txt": sb + "\n", ".github/workflows/ci.yml": wf("", "bash $GITHUB_WORKSPACE/ci/step.txt")}, bg104},
		{"a program run by its path, with a shell's #!", map[string]string{"ci/step.rocm": "#!/bin/sh\n" + sb + "\n", ".github/workflows/ci.yml": wf("", "./ci/step.rocm")}, bg104},
		{"a copied .txt run by sh", map[string]string{"ci/mc.txt": sb + "\n", "docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04\nCOPY ci/mc.txt /mc\nRUN sh /mc\n"}, bg104},
	}
	attacks := make([]attack, 0, len(cases))
	for _, c := range cases {
		attacks = append(attacks, attack{name: c.name, files: c.files, code: 1, stdout: c.want})
	}
	runAttacks(t, attacks)
}
