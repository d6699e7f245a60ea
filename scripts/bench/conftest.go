//go:build bench

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// conftestVersion is the conftest the benchmark compares with, installed
// with go install into the benchmark's temporary GOBIN (never into the
// user's).
const conftestVersion = "v0.71.1"

// conftestPolicy is the equivalent of buildgate's BG102 for what conftest
// can read (Dockerfiles and HCL; it has no parser for pip requirements or
// shell scripts): the ARGs and bake variables of the source build.
const conftestPolicy = `package main

import rego.v1

deny contains msg if {
	some ins in input
	ins.Cmd == "arg"
	some v in ins.Value
	startswith(v, "MOONCAKE_")
	msg := sprintf("ARG %s is a build argument of the Mooncake source build", [v])
}

deny contains msg if {
	some name, _ in input.variable
	startswith(name, "MOONCAKE_")
	msg := sprintf("variable %s is a build argument of the Mooncake source build", [name])
}
`

// installConftest installs conftest under work and writes its policy; it
// returns the binary and the policy directory, or "" when it cannot be
// installed (no module proxy): the table then has no conftest columns.
func installConftest(work string) (string, string) {
	gobin := filepath.Join(work, "gobin")
	cmd := exec.Command("go", "install", "github.com/open-policy-agent/conftest@"+conftestVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: conftest %s could not be installed (%v): measuring buildgate alone\n%s", conftestVersion, err, out)
		return "", ""
	}
	pol := filepath.Join(work, "conftest-policy")
	check(os.MkdirAll(pol, 0o755))
	check(os.WriteFile(filepath.Join(pol, "mooncake.rego"), []byte(conftestPolicy), 0o644))
	return filepath.Join(gobin, "conftest"), pol
}
