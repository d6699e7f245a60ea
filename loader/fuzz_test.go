package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets call the loaders without Parse's recover, so that a panic
// is a crash the fuzzer reports, and check the position contract on whatever
// comes out.

func addSeeds(f *testing.F, kind Kind, extra ...string) {
	for _, s := range extra {
		f.Add([]byte(s))
	}
	dir, _ := filepath.Abs("../../shared/corpus")
	if _, err := os.Stat(dir); err != nil {
		return
	}
	for rel, k := range corpusFiles(f, dir) {
		if k == kind {
			if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
				f.Add(b)
			}
		}
	}
}

// fuzzLoader runs one loader on every input and checks its output.
func fuzzLoader[T Document](f *testing.F, kind Kind, load func(string, []byte) T, seeds ...string) {
	addSeeds(f, kind, seeds...)
	f.Fuzz(func(t *testing.T, src []byte) {
		d := load("fuzz-input", src)
		checkPositions(t, src, d)
		for _, r := range References(d) {
			if r.Path != "" && (strings.HasPrefix(r.Path, "/") || r.Path == "..") {
				t.Fatalf("a reference leaves the root: %+v", r)
			}
		}
	})
}

// Depth- and size-amplifying seeds: nesting past the bounds of bounds.go,
// long chains, many elements. The fuzzer mutates around them.
var (
	deep   = strings.Repeat
	hclAmp = []string{"a = " + deep("[", 600) + deep("]", 600) + "\n", "a = 1" + deep(" + 1", 600) + "\n",
		"a = " + deep("!", 600) + "true\n", "a = \"" + deep("%{ if x }", 600) + deep("%{ endif }", 600) + "\"\n",
		deep("b {\n", 600) + deep("}\n", 600), "a = " + deep("f(", 600) + deep(")", 600) + "\n"}
	shellAmp = []string{"echo " + deep("$(", 2000) + deep(")", 2000) + "\n", "echo " + deep("${a:-", 2000) + deep("}", 2000) + "\n",
		deep("(", 2000) + "true" + deep(")", 2000) + "\n", "cat" + deep(" | cat", 3000) + "\n", "true" + deep(" && true", 3000) + "\n",
		"cat <<E\n" + deep("$(", 1500) + deep(")", 1500) + "\nE\n", "echo \"" + deep("$( echo \")\" ", 1500) + "\"\n"}
	reqAmp = []string{deep("a\n", 25000), "pkg" + deep(",>=1", 5000) + "\n", "pkg==1 " + deep(" --hash=sha256:"+deep("a", 64), 2000) + "\n",
		"pkg" + deep(" \\\n", 5000) + ">=1\n"}
	dockerAmp = []string{"FROM a\nRUN " + deep("$(", 2000) + deep(")", 2000) + "\n", "FROM a\nRUN <<E\n" + deep("(", 2000) + deep(")", 2000) + "\nE\n",
		"FROM a\n" + deep("RUN <<E\nx\nE\n", 2000), "FROM a\n" + deep("RUN a\n", 20001)}
)

func FuzzDockerfile(f *testing.F) {
	fuzzLoader(f, KindDockerfile, loadDockerfile, append([]string{"FROM a AS b\nRUN <<EOF\necho\nEOF\n", "# escape=`\nFROM a\nRUN x `\n y\n",
		"FROM a\nRUN --mount=type=bind,from=b,target=/x \\\n # c\n  git clone $R\n"}, dockerAmp...)...)
}

func FuzzHCL(f *testing.F) {
	fuzzLoader(f, KindHCL, loadHCL, append([]string{"target \"a\" {\n args = { X = Y }\n tags = [for t in l : t]\n}\n",
		"function \"f\" {\n params = [a]\n result = a\n}\n"}, hclAmp...)...)
}

func FuzzBakeJSON(f *testing.F) {
	fuzzLoader(f, KindHCL, func(_ string, src []byte) *HCLDocument { return loadHCL("docker-bake.json", src) },
		`{"target": {"a": {"context": ".", "dockerfile": "ci/img", "args": {"A": "1"}, "tags": ["x", "y"]}}, "group": {"default": {"targets": ["a"]}}}`,
		`{"variable": {"V": {"default": "${X}"}}, "target": {"b": {"inherits": ["a"], "args": {"A": null}}}}`)
}

func FuzzRequirements(f *testing.F) {
	fuzzLoader(f, KindRequirements, loadRequirements, append([]string{"pkg[a]>=1 ; python_version<'3' --hash=sha256:x\n", "a \\\n>=1\n-r x.txt\n",
		"git+https://x/y.git#egg=z\n-e ./p\n"}, reqAmp...)...)
}

func FuzzShell(f *testing.F) {
	fuzzLoader(f, KindShell, loadShell, append([]string{"f() { local a=\"x y\"; for i in $a; do case $i in x|y) :;; esac; done; }\ncat <<E\n$a\nE\n",
		"docker run i bash -lc 'sh -c \"bash -c \\\"cd x \\\\$y\\\"\"'\nsu - u -c \"if $x\"\n",
		"eval \"a $b\" 'c'\necho -n 'x | y' | sh\nprintf '%s\\n' a\\\n b | bash\ncat <<'E' | bash\neval x\nE\nscript -qec \"$c\" /dev/null\n",
		"S=${S:-ci/a}; bash -eo pipefail \"$S\" < f\ndocker --context=x buildx --builder b build -qfdocker/$D .\ncat a | bash\nci/x\n"}, shellAmp...)...)
}

func FuzzRecipes(f *testing.F) {
	fuzzLoader(f, KindShell, func(_ string, src []byte) *ShellDocument { return loadRecipes("Makefile", src, "make") },
		"X := /opt/x\nall: dep ; @echo $$HOME\n\tcd $(X) && \\\n\t  $(MAKE) -C $(X) $@\n\t$(shell pwd) $(wildcard *.c)\n.ONESHELL:\n",
		"a:\n\t"+deep("$(", 500)+deep(")", 500)+"\n")
}

func FuzzJustfile(f *testing.F) {
	fuzzLoader(f, KindShell, func(_ string, src []byte) *ShellDocument { return loadRecipes("justfile", src, "just") },
		"d := \"/opt/j\"\n[private]\nb arg=\"x\":\n    cd {{d}} && make \\\n      install\npy:\n    #!/usr/bin/env bash\n    echo {{ d + \"x\" }}\n")
}

func FuzzPython(f *testing.F) {
	fuzzLoader(f, KindShell, func(_ string, src []byte) *ShellDocument { return loadPython("b.py", src) },
		"import subprocess, os\nU = 'https://x/y'\nos.chdir('/w')\nsubprocess.run(['git', 'clone', U, 'a b'], cwd='x')\nos.system(\"make -C /q\")\nsubprocess.check_call(\"\"\"a\nb\"\"\", shell=True)\n",
		"subprocess.run(["+deep("'a', ", 300)+"])\n")
}

func FuzzCompose(f *testing.F) {
	fuzzLoader(f, KindPipeline, func(_ string, src []byte) *PipelineDocument { return loadPipelineAs("compose.yaml", src, "compose") },
		"services:\n  a:\n    build:\n      context: https://x.org/a/b.git\n      args: {A: 1}\n  b:\n    build:\n      dockerfile_inline: |\n        FROM x\n        RUN <<EOF\n        make\n        EOF\n      additional_contexts:\n        - c=https://x.org/c/d.git\n",
		"services:\n  a:\n    build:\n      dockerfile_inline: \"FROM x\\nRUN make\\n\"\n")
}

// FuzzPip: pip and uv commands (issue 29), with the environment a script
// exports and a Dockerfile's stages set.
func FuzzPip(f *testing.F) {
	fuzzLoader(f, KindShell, loadShell,
		"export PIP_CONSTRAINT='/c a.txt'\nPIP_NO_BINARY=:all: sudo -E python3 -m pip install -qr r.txt -c/c.txt \"x[a,b]>=1; os_name=='nt'\" -e 'git+https://h/o/r#egg=p==1 ;extra==\"x\"' ./w/*.whl .[dev]\n",
		"env UV_OVERRIDE=o.txt uv pip install --system --override=o2 -i https://i/simple --no-binary p -- a==${V:-1}\nuv pip uninstall p q\nuv pip sync a.txt b.txt\npip wheel --no-binary=:all: x=== 1,\n")
}

// FuzzPipDockerfile: the same in a Dockerfile, with stage environments
// and the image's architectures and Python versions.
func FuzzPipDockerfile(f *testing.F) {
	fuzzLoader(f, KindDockerfile, loadDockerfile,
		"ARG PYTHON_VERSION=3.12\nFROM --platform=linux/arm64 python:3.11 AS b\nENV UV_INDEX_URL=https://x PIP_NO_INDEX=1\nFROM b\nRUN uv pip install -r /r.txt && pip install 'p; platform_machine==\"x86_64\"'\n")
}
