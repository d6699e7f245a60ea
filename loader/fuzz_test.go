package loader

import (
	"os"
	"path/filepath"
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
		checkPositions(t, src, load("fuzz-input", src))
	})
}

func FuzzDockerfile(f *testing.F) {
	fuzzLoader(f, KindDockerfile, loadDockerfile, "FROM a AS b\nRUN <<EOF\necho\nEOF\n", "# escape=`\nFROM a\nRUN x `\n y\n",
		"FROM a\nRUN --mount=type=bind,from=b,target=/x \\\n # c\n  git clone $R\n")
}

func FuzzHCL(f *testing.F) {
	fuzzLoader(f, KindHCL, loadHCL, "target \"a\" {\n args = { X = Y }\n tags = [for t in l : t]\n}\n",
		"function \"f\" {\n params = [a]\n result = a\n}\n")
}

func FuzzRequirements(f *testing.F) {
	fuzzLoader(f, KindRequirements, loadRequirements, "pkg[a]>=1 ; python_version<'3' --hash=sha256:x\n", "a \\\n>=1\n-r x.txt\n",
		"git+https://x/y.git#egg=z\n-e ./p\n")
}

func FuzzShell(f *testing.F) {
	fuzzLoader(f, KindShell, loadShell, "f() { local a=\"x y\"; for i in $a; do case $i in x|y) :;; esac; done; }\ncat <<E\n$a\nE\n")
}
