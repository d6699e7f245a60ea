package loader

import (
	"strings"
	"testing"
)

// Issue 32: a file named on the command line is read whatever its name,
// its kind told by its text as its owner's tool would accept it.
func TestDetectText(t *testing.T) {
	for _, c := range []struct {
		text string
		want Kind
	}{
		{"# syntax=docker/dockerfile:1\n\n# base\nFROM python:3.11 AS base\n", KindDockerfile},
		{"ARG CUDA=12\nFROM nvidia/cuda:${CUDA}\n", KindDockerfile},
		{"  from ubuntu\nrun true\n", KindDockerfile},
		{"#!/usr/bin/env bash\nmake\n", KindShell},
		{"// bake\nvariable \"TAG\" {\n  default = \"x\"\n}\n", KindHCL},
		{"TAG = \"x\"\ntarget \"default\" {\n}\n", KindHCL},
		{"on: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n", KindPipeline},
		{"steps:\n  - command: make\n", KindPipeline},
		{"stages: [build]\nbuild:\n  script:\n    - make\n", KindPipeline},
		{"services:\n  app:\n    build: .\n", KindPipeline},
		{"# pins\nflash-attn==2.0.8 ; sys_platform == 'linux'\n-r base.txt\ntorch>=2  # the wheel\n", KindRequirements},
		{"numpy \\\n    --hash=sha256:abc\n", KindRequirements},
		// Not a build file: prose, a shell script without a shebang,
		// YAML that is nobody's pipeline, an empty file.
		{"Flash attention is fast.\n", ""},
		{"set -e\ngit clone x\n", ""},
		{"name: x\nversion: 1\n", ""},
		{"", ""},
		// The red team's: Python, prose, an .env file.
		{"from os import path\nimport sys\n", ""},
		{"From the maintainers: thanks.\n", ""},
		{"flash-attn=2.5.8\nTORCH=2\n", ""},
		{"FROM --platform=$BUILDPLATFORM golang:1.22 AS build\n", KindDockerfile},
		{"ARG A=1 B\nFROM x\n", KindDockerfile},
		{"# only a comment\n", ""},
	} {
		got, ok := DetectText([]byte(c.text))
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%q: %q %v, want %q", c.text, got, ok, c.want)
		}
	}
	// A head cut in a line: the cut line is not judged.
	long := "FROM a\n" + strings.Repeat("RUN true\n", DetectHead/9) + "RUN tr"
	if got, _ := DetectText([]byte(long[:DetectHead])); got != KindDockerfile {
		t.Errorf("a cut head: %q", got)
	}
}

// Issue 32 (podman's Makefile): a define … endef block is a variable's
// value, never a recipe, nested defines included.
func TestMakefileDefineIsNoRecipe(t *testing.T) {
	src := "define PRINT_HELP\nimport re, sys\nfor line in sys.stdin:\n\tprint(line) if x else y\nendef\nexport PRINT_HELP\n\noverride define OUTER =\ndefine INNER\n\tnot a recipe\nendef\nendef\n\nhelp:\n\t@python -c \"$$PRINT_HELP\" < $(MAKEFILE_LIST)\n"
	doc := Parse(KindShell, "Makefile", []byte(src)).(*ShellDocument)
	if len(doc.Errors) > 0 {
		t.Errorf("errors: %+v", doc.Errors)
	}
	var names []string
	for _, c := range doc.Commands {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "python" {
		t.Errorf("commands %v, want only the help recipe's python", names)
	}
}
