package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

// toStub, which converts a document straight to its stub, gives what
// pruning its whole conversion gives (stub), also from the outline the
// selection parses (loader.Outline), on every build file of the fixtures
// and of vLLM's real tree.
func TestToStubIsThePrunedDocument(t *testing.T) {
	cfg, _ := ast.InterfaceToValue(map[string]any{"migrations": []any{map[string]any{"requirements": []any{"requirements/rocm.txt", "requirements/common.txt"}}}})
	shapes := stubShapesFor(requirementsNamer(cfg))
	kinds := map[loader.Kind]int{}
	for _, root := range []string{"../testdata", "../loader/testdata", "../examples", "../../shared/corpus/vllm/latest"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err // ../shared absent: that root is skipped
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			kind, ok := loader.DetectName(filepath.ToSlash(rel))
			if !ok {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			doc := loader.Parse(kind, filepath.ToSlash(rel), src)
			whole, err := toTerm(reflect.ValueOf(doc))
			if err != nil {
				t.Fatal(err)
			}
			direct, err := toStub(reflect.ValueOf(doc), shapeOf(shapes, string(kind)))
			if err != nil {
				t.Fatal(err)
			}
			want := stub(whole, shapeOf(shapes, string(kind)))
			if want.Value.Compare(direct.Value) != 0 {
				t.Errorf("%s: toStub differs from the pruned document:\n%v\n%v", p, direct, want)
			}
			// The outline the selection parses (a Dockerfile without what
			// its RUNs hold) has the same stub.
			outlined, err := toStub(reflect.ValueOf(loader.Outline(loader.Prepare(kind, filepath.ToSlash(rel), src))), shapeOf(shapes, string(kind)))
			if err != nil {
				t.Fatal(err)
			}
			if want.Value.Compare(outlined.Value) != 0 {
				t.Errorf("%s: the outline's stub differs:\n%v\n%v", p, outlined, want)
			}
			// A requirements file waiting to be parsed again (read through
			// a loader, its includes followed) keeps its outline from the
			// parse that followed them: the same stub as its full parse.
			if kind == loader.KindRequirements {
				l, err := loader.NewLoader(root)
				if err != nil {
					t.Fatal(err)
				}
				again, err := loader.NewLoader(root)
				if err != nil {
					t.Fatal(err)
				}
				l.Lazy, l.Again = true, again
				ds, err := l.Load(filepath.ToSlash(rel), kind)
				if err != nil {
					t.Fatal(err)
				}
				if _, waiting := ds[0].(*loader.Lazy); !waiting {
					t.Errorf("%s: %T, want a document waiting to be parsed", p, ds[0])
				}
				kept, err := toStub(reflect.ValueOf(loader.Outline(ds[0])), shapeOf(shapes, string(kind)))
				if err != nil {
					t.Fatal(err)
				}
				full, err := toStub(reflect.ValueOf(loader.Parsed(ds[0])), shapeOf(shapes, string(kind)))
				if err != nil {
					t.Fatal(err)
				}
				if full.Value.Compare(kept.Value) != 0 {
					t.Errorf("%s: the kept outline's stub differs:\n%v\n%v", p, kept, full)
				}
				_ = l.Close()
				_ = again.Close()
				kinds["requirements (waiting)"]++
			}
			kinds[kind]++
			return nil
		})
	}
	if kinds["requirements (waiting)"] == 0 {
		t.Errorf("no waiting requirements file compared: %v", kinds)
	}
	for _, k := range []loader.Kind{loader.KindDockerfile, loader.KindHCL, loader.KindRequirements, loader.KindShell} {
		if kinds[k] == 0 {
			t.Errorf("no %s compared: %v", k, kinds)
		}
	}
}

// TestWaitingRequirementsOutline: the outline a waiting requirements file
// keeps has the stub of its full parse, with options, hashes, includes
// (one missing) and errors.
func TestWaitingRequirementsOutline(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"requirements/rocm.txt": "--pre\n--index-url https://example.org/simple\n-r common.txt\n-c missing.txt\n" +
			"mooncake-transfer-engine-rocm>=0.3.13 --hash=sha256:" + strings.Repeat("a", 64) + "\nBad Name !!\n",
		"requirements/common.txt": "Numpy_Extra[x]==2.*\n",
	}
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := loader.NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	again, err := loader.NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	l.Lazy, l.Again = true, again
	ds, err := l.Load("requirements/rocm.txt", loader.KindRequirements)
	if err != nil {
		t.Fatal(err)
	}
	shapes := stubShapesFor(func(ast.Value) bool { return false })
	for _, d := range ds {
		kept, err := toStub(reflect.ValueOf(loader.Outline(d)), shapeOf(shapes, "requirements"))
		if err != nil {
			t.Fatal(err)
		}
		full, err := toStub(reflect.ValueOf(loader.Parsed(d)), shapeOf(shapes, "requirements"))
		if err != nil {
			t.Fatal(err)
		}
		if full.Value.Compare(kept.Value) != 0 {
			t.Errorf("%s: the kept outline's stub differs:\n%v\n%v", d.DocPath(), kept, full)
		}
		if d.DocPath() == "requirements/rocm.txt" {
			for _, want := range []string{`"name": "pre"`, `"name": "index-url"`, "sha256:", "requirements/missing.txt", `"errors": [{`} {
				if !strings.Contains(full.String(), want) {
					t.Errorf("the stub lacks %s, so the comparison proves little: %v", want, full)
				}
			}
		}
	}
}
