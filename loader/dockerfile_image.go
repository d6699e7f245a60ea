package loader

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ImageEnv is what a Dockerfile says of the machine its images are for,
// the environment in which pip evaluates a requirement's marker (issue
// 29): a pin under `platform_machine == "aarch64"` is no pin in an
// amd64-only image.
type ImageEnv struct {
	// Arches are the platform_machine values the file's instructions
	// name (FROM --platform, TARGETARCH/TARGETPLATFORM defaults, and the
	// words of its instructions: …-linux_x86_64.whl, apt's arch=amd64),
	// comments left out; empty when it names none (then the image may be
	// x86_64 or aarch64).
	Arches []string `json:"arches"`
	// Pythons are the CPython versions (3.N) the file says: a
	// PYTHON_VERSION ARG or ENV default, a python:3.N base image; empty
	// when it says none (every CPython 3.x).
	Pythons []string `json:"pythons"`
	// Pos is the start of the file: the image is the whole file's.
	Pos Pos `json:"pos"`
}

var (
	archWordRe = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])(x86_64|x86-64|amd64|aarch64|arm64|ppc64le|s390x)(?:$|[^a-z0-9])`)
	archOf     = map[string]string{"x86_64": "x86_64", "x86-64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64", "ppc64le": "ppc64le", "s390x": "s390x"}
	pyBaseRe   = regexp.MustCompile(`^(?:docker\.io/)?(?:library/)?python:(3\.[0-9]+)`)
	pyMinorRe  = regexp.MustCompile(`^(3\.[0-9]+)`)
)

// imageEnv reads the architectures and Python versions a Dockerfile names.
func imageEnv(d *DockerfileDocument) ImageEnv {
	arches, pythons := map[string]bool{}, map[string]bool{}
	words := func(s string) {
		if len(s) > 1<<20 {
			s = s[:1<<20]
		}
		for _, m := range archWordRe.FindAllStringSubmatch(s, -1) {
			arches[archOf[strings.ToLower(m[1])]] = true
		}
	}
	arg := func(a ArgDef) {
		if a.Default == nil {
			return
		}
		switch a.Name {
		case "TARGETARCH", "TARGETPLATFORM", "BUILDPLATFORM":
			words(*a.Default)
		case "PYTHON_VERSION":
			if m := pyMinorRe.FindStringSubmatch(*a.Default); m != nil {
				pythons[m[1]] = true
			}
		}
	}
	for _, a := range d.GlobalArgs {
		arg(a)
	}
	for _, st := range d.Stages {
		if st.Platform != nil {
			words(wordValue(*st.Platform))
		}
		if m := pyBaseRe.FindStringSubmatch(wordValue(st.Base)); m != nil {
			pythons[m[1]] = true
		}
		for _, in := range st.Instructions {
			for _, a := range in.ArgDefs {
				arg(a)
			}
			for _, e := range in.Env {
				if in.Cmd == "env" && e.Key == "PYTHON_VERSION" {
					if m := pyMinorRe.FindStringSubmatch(e.Value); m != nil {
						pythons[m[1]] = true
					}
				}
			}
			switch {
			case in.Cmd == "run" && in.Shell != nil:
				runWords(in.Shell, words)
			case in.Cmd == "env" || in.Cmd == "arg" || in.Cmd == "add" || in.Cmd == "copy":
				words(in.Original)
			}
		}
	}
	// Empty lists, not null: policies iterate them.
	return ImageEnv{
		Arches: append([]string{}, slices.Sorted(maps.Keys(arches))...), Pythons: append([]string{}, slices.Sorted(maps.Keys(pythons))...),
		Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1},
	}
}

// runWords reads a RUN's architecture words from what it does: its
// commands' words and its assignments' values, not its comments, and not
// a test's operands (`[ "$TARGETARCH" = "arm64" ] && exit 0` names an
// architecture the image is not built for as much as one it is).
func runWords(sh *Script, words func(string)) {
	for _, c := range sh.Commands {
		switch c.Name {
		case "[", "[[", "test":
			continue
		}
		for _, w := range c.Words {
			words(wordValue(w))
		}
	}
	for _, a := range sh.Assignments {
		words(a.ValueText)
	}
}
