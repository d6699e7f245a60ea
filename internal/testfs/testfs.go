// Package testfs builds file trees for tests.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Tree writes files (slash-separated paths to contents) under a new
// temporary directory and returns it.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
