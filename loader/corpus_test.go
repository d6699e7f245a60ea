package loader

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is ../shared/corpus beside the checkout; tests that read it skip
// when it is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("../../shared/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpus is absent")
	}
	return dir
}

// corpusFiles lists every corpus file a loader claims, with its kind.
func corpusFiles(t testing.TB, dir string) map[string]Kind {
	files := map[string]Kind{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if k, ok := DetectName(rel); ok {
			files[rel] = k
		} else if NeedsContent(rel) {
			head, _ := os.ReadFile(p)
			if k, ok := DetectContent(head); ok {
				files[rel] = k
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func loadCorpus(t *testing.T, rel string, kind Kind) Document {
	t.Helper()
	l, err := NewLoader(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	docs, err := l.Load(rel, kind)
	if err != nil {
		t.Fatal(err)
	}
	return docs[0]
}

// Every corpus build file loads without errors, and every element's position
// holds its text.
func TestCorpusLoadsCleanly(t *testing.T) {
	dir := corpusDir(t)
	files := corpusFiles(t, dir)
	counts := map[Kind]int{}
	for rel, kind := range files {
		counts[kind]++
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			doc := Parse(kind, rel, src)
			for _, e := range doc.DocErrors() {
				t.Errorf("%s:%d:%d: %s", rel, e.Pos.Line, e.Pos.Column, e.Message)
			}
			if d, ok := doc.(*DockerfileDocument); ok {
				for _, st := range d.Stages {
					for _, in := range st.Instructions {
						for _, e := range in.ShellErrors {
							t.Errorf("%s:%d: RUN shell: %s", rel, e.Pos.Line, e.Message)
						}
					}
				}
			}
			checkPositions(t, src, doc)
		})
	}
	// The brief's corpus: 10 + 2 + 2 + 1 + 1 + 1 + 1 Dockerfiles and more.
	for _, k := range Kinds {
		if counts[k] == 0 {
			t.Errorf("no %s files found in the corpus", k)
		}
	}
}

func TestCorpusPositions(t *testing.T) {
	t.Run("sglang ARGs and git clone", func(t *testing.T) {
		d := loadCorpus(t, "sglang/docker/rocm.Dockerfile", KindDockerfile).(*DockerfileDocument)
		args := map[string]ArgDef{}
		var clone *Word
		for _, st := range d.Stages {
			for _, in := range st.Instructions {
				for _, a := range in.ArgDefs {
					args[a.Name] = a
				}
				if in.Shell == nil {
					continue
				}
				for _, c := range in.Shell.Commands {
					if c.Name == "git" && len(c.Words) > 2 && *c.Words[1].Value == "clone" && c.Words[2].Text == "${MOONCAKE_REPO}" {
						w := c.Words[2]
						clone = &w
					}
				}
			}
		}
		wantLine(t, "ARG MOONCAKE_REPO", args["MOONCAKE_REPO"].NamePos, 381, 5)
		wantLine(t, "ARG MOONCAKE_COMMIT", args["MOONCAKE_COMMIT"].NamePos, 382, 5)
		if got := *args["MOONCAKE_REPO"].Default; got != "https://github.com/kvcache-ai/Mooncake.git" {
			t.Errorf("MOONCAKE_REPO default = %q", got)
		}
		if clone == nil {
			t.Fatal("git clone ${MOONCAKE_REPO} not found")
		}
		wantLine(t, "${MOONCAKE_REPO}", clone.Pos, 624, 16)
	})
	t.Run("ci-rocm.hcl group entries", func(t *testing.T) {
		d := loadCorpus(t, "vllm/latest/docker/ci-rocm.hcl", KindHCL).(*HCLDocument)
		g := d.Groups["ci-base-rocm-ci-with-deps"]
		if g == nil || len(g.Attributes) == 0 || g.Attributes[0].Name != "targets" {
			t.Fatalf("group ci-base-rocm-ci-with-deps with targets not found: %+v", g)
		}
		var names []string
		for _, e := range g.Attributes[0].Elements {
			wantLine(t, e.Text, e.Pos, 418, 0)
			names = append(names, e.Text)
		}
		if len(names) != 4 || names[0] != `"nixl-rocm-ci"` {
			t.Errorf("entries = %v", names)
		}
	})
	t.Run("ci-bake-rocm.sh stage list", func(t *testing.T) {
		d := loadCorpus(t, "vllm/latest/.buildkite/scripts/ci-bake-rocm.sh", KindShell).(*ShellDocument)
		for _, a := range d.Assignments {
			if a.Name != "DEFAULT_CI_BASE_DOCKERFILE_STAGES" {
				continue
			}
			wantLine(t, a.Name, a.Pos, 20, 1)
			var words []string
			for _, w := range a.Words {
				words = append(words, *w.Value)
				wantLine(t, *w.Value, w.Pos, 20, 0)
			}
			want := "base rust_toolchain_input_0 rust-toolchain-input rust-toolchain build_nixl build_rocshmem build_deepep mori_base ci_base"
			if strings.Join(words, " ") != want {
				t.Errorf("words = %v", words)
			}
			wantLine(t, "build_nixl", a.Words[4].Pos, 20, 100)
			return
		}
		t.Fatal("DEFAULT_CI_BASE_DOCKERFILE_STAGES not found")
	})
	t.Run("after rocm.txt pin", func(t *testing.T) {
		d := loadCorpus(t, "vllm/after/requirements/rocm.txt", KindRequirements).(*RequirementsDocument)
		for _, r := range d.Requirements {
			if r.Normalized != "mooncake-transfer-engine-rocm" {
				continue
			}
			wantLine(t, "pin", r.Pos, 31, 1)
			wantLine(t, "name", r.NameWord.Pos, 31, 1)
			if r.Name != "mooncake-transfer-engine-rocm" || r.Specifier != ">= 0.3.13" ||
				len(r.Specifiers) != 1 || r.Specifiers[0].Op != ">=" || r.Specifiers[0].Version != "0.3.13" {
				t.Errorf("pin = %+v", r)
			}
			return
		}
		t.Fatal("mooncake-transfer-engine-rocm not found")
	})
}

// wantLine checks a position's line, and its column unless col is 0.
func wantLine(t *testing.T, what string, p Pos, line, col int) {
	t.Helper()
	if p.Line != line || col != 0 && p.Column != col {
		t.Errorf("%s at %d:%d, want %d:%d", what, p.Line, p.Column, line, col)
	}
}
