package lint

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/discover"
)

func benchRoot(b *testing.B) string {
	for _, dir := range []string{"../../shared/corpus/vllm/latest", "../testdata/vllm-rocm/before"} {
		if _, err := os.Stat(dir); err == nil {
			abs, _ := filepath.Abs(dir)
			return abs
		}
	}
	b.Skip("no input")
	return ""
}

// BenchmarkLint is a whole run (discover, load, evaluate) over vLLM's 91
// build files when ../shared is present, else the before-state fixture.
func BenchmarkLint(b *testing.B) {
	root := benchRoot(b)
	eng := builtin(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), Options{Root: root, Paths: []string{root}, Config: config.Default(), Policies: eng}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is the same files parsed alone.
func BenchmarkLoad(b *testing.B) {
	root := benchRoot(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		files, err := discover.Find(root, []string{root}, discover.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Load(root, files, nil, 0); err != nil {
			b.Fatal(err)
		}
	}
}
