package engine

import (
	"os"
	"testing"

	"github.com/buildgate/buildgate/loader"
)

// BenchmarkConvert converts the largest real Dockerfile of the corpus
// (vLLM's ROCm image, before the migration) into a Rego value.
func BenchmarkConvert(b *testing.B) {
	src, err := os.ReadFile("../testdata/vllm-rocm/before/docker/Dockerfile.rocm")
	if err != nil {
		b.Skip(err)
	}
	doc := loader.Parse(loader.KindDockerfile, "docker/Dockerfile.rocm", src)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToValue(doc); err != nil {
			b.Fatal(err)
		}
	}
}
