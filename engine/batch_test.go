package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"github.com/buildgate/buildgate/policies"
)

// TestBatchEqualsEachFile: the runner evaluates files in batches
// (EvalFiles) on the promise that every rule of the pack looks at each
// document alone, reading the others only through the repository's table.
// A batch of every file of the fixtures must give exactly the findings of
// each file evaluated alone, and the batch facts those of each file.
func TestBatchEqualsEachFile(t *testing.T) {
	mods, err := ModulesFromFS(policies.FS, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(context.Background(), mods, "test")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ToValue(config.Default().PolicyInput())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, root := range []string{"../testdata/vllm-rocm/before", "../testdata/vllm-rocm/after"} {
		t.Run(filepath.Base(root), func(t *testing.T) {
			docs := loadTree(t, root)
			facts := make([]FileFact, len(docs))
			for i, d := range docs {
				v, err := e.FileFacts(ctx, cfg, d)
				if err != nil {
					t.Fatal(err)
				}
				facts[i] = FileFact{Path: d.Path, Kind: docKind(t, root, d.Path), Facts: v}
			}
			batch, err := e.FilesFacts(ctx, cfg, docs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range docs {
				if facts[i].Facts.Compare(batch[i]) != 0 {
					t.Errorf("%s: facts alone %v, in a batch %v", docs[i].Path, facts[i].Facts, batch[i])
				}
			}
			repo, err := e.Fold(ctx, cfg, facts)
			if err != nil {
				t.Fatal(err)
			}
			var alone []finding.Finding
			for _, d := range docs {
				fs, err := e.EvalFile(ctx, cfg, NewTable(repo), d)
				if err != nil {
					t.Fatal(err)
				}
				alone = append(alone, fs...)
			}
			together, err := e.EvalFiles(ctx, cfg, NewTable(repo), docs)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := keys(alone), keys(together); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("each file alone: %d findings, in one batch: %d\n%v\n%v", len(a), len(b), a, b)
			}
			if root == "../testdata/vllm-rocm/before" && len(alone) < 50 {
				t.Errorf("the before-state gives %d findings: the test compares too little", len(alone))
			}
		})
	}
}

func keys(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s:%d:%d %s", f.Rule, f.Path, f.Pos.Line, f.Pos.Column, f.Message)
	}
	sort.Strings(out)
	return out
}

func loadTree(t *testing.T, root string) []Doc {
	t.Helper()
	var docs []Doc
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		kind, ok := loader.DetectName(rel)
		if !ok {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		doc, err := Convert(loader.Parse(kind, rel, src))
		if err != nil {
			return err
		}
		doc.Source = loader.Text(src)
		docs = append(docs, doc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 3 {
		t.Fatalf("%s: %d documents", root, len(docs))
	}
	return docs
}

func docKind(t *testing.T, root, rel string) string {
	k, _ := loader.DetectName(rel)
	return string(k)
}
