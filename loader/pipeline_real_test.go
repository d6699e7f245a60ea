package loader

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealPipelines reads every CI pipeline below $BUILDGATE_PIPELINES
// (fetched snapshots of real repositories, docs/documents.md says which)
// and holds each to the position contract, with no error entry: a real
// pipeline the CI system runs is read whole. Skipped when unset.
func TestRealPipelines(t *testing.T) {
	dir := os.Getenv("BUILDGATE_PIPELINES")
	if dir == "" {
		t.Skip("BUILDGATE_PIPELINES is not set")
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		// A snapshot's root is its first directory (owner+name).
		inRepo := rel
		if i := strings.IndexByte(rel, '/'); i >= 0 {
			inRepo = rel[i+1:]
		}
		if strings.HasPrefix(inRepo, "_extra/") {
			parts := strings.SplitN(inRepo, "/", 3)
			if len(parts) == 3 {
				inRepo = parts[2]
			}
		}
		sys := pipelineSystem(inRepo)
		if sys == "" && !strings.HasSuffix(inRepo, ".yml") && !strings.HasSuffix(inRepo, ".yaml") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		doc := Parse(KindPipeline, inRepo, src).(*PipelineDocument)
		checkPositions(t, src, doc)
		for _, e := range doc.Errors {
			t.Errorf("%s: %d:%d: %s", rel, e.Pos.Line, e.Pos.Column, e.Message)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pipeline files read", n)
}
