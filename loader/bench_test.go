package loader

import (
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks per loader, on the project's fixtures and, when present, the
// largest real file of each kind in ../shared/corpus.
func benchFile(b *testing.B, kind Kind, paths ...string) {
	var src []byte
	var name string
	for _, p := range paths {
		if s, err := os.ReadFile(p); err == nil && len(s) > len(src) {
			src, name = s, p
		}
	}
	if src == nil {
		b.Skip("no input")
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(kind, filepath.Base(name), src)
	}
}

func BenchmarkDockerfile(b *testing.B) {
	benchFile(b, KindDockerfile, "testdata/examples/Dockerfile", "../testdata/vllm-rocm/before/docker/Dockerfile.rocm",
		"../../shared/corpus/vllm/latest/docker/Dockerfile")
}

func BenchmarkHCL(b *testing.B) {
	benchFile(b, KindHCL, "testdata/examples/ci.hcl", "../../shared/corpus/vllm/after/docker/ci-rocm.hcl")
}

func BenchmarkRequirements(b *testing.B) {
	benchFile(b, KindRequirements, "testdata/examples/requirements/rocm.txt", "../../shared/corpus/vllm/latest/requirements/common.txt")
}

func BenchmarkShell(b *testing.B) {
	benchFile(b, KindShell, "testdata/examples/ci.sh", "../../shared/corpus/vllm/after/.buildkite/scripts/ci-bake-rocm.sh")
}
