package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
			kinds[kind]++
			return nil
		})
	}
	for _, k := range []loader.Kind{loader.KindDockerfile, loader.KindHCL, loader.KindRequirements, loader.KindShell} {
		if kinds[k] == 0 {
			t.Errorf("no %s compared: %v", k, kinds)
		}
	}
}
