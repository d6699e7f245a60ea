# Test fixtures shared by the pack's tests: the default Mooncake migration
# and helpers that parse sources into an input.
package buildgate.lib.fixtures

migration := {
	"package": "mooncake-transfer-engine-rocm",
	"minimum": "0.3.13",
	"requirements": ["requirements/rocm.txt"],
	"variants": ["mooncake-transfer-engine", "mooncake-transfer-engine-cuda13"],
	"names": ["mooncake"],
	"build_args": [
		"MOONCAKE_BRANCH", "MOONCAKE_REPO", "MOONCAKE_COMMIT",
		"MOONCAKE_GO_VERSION", "MOONCAKE_GO_SHA256", "MOONCAKE_CACHE_KEY",
	],
	"repositories": ["github.com/kvcache-ai/Mooncake"],
	"scope": [],
	"platform": ["rocm*", "hip*", "amdgpu", "gfx*"],
	"other_platforms": ["cuda", "nvidia", "nvcc", "ascend", "npu", "cann", "musa", "xpu"],
}

# shows mocks buildgate.source_words (with buildgate.source_words as
# fx.shows): the words of each file are given in words_of, by path.
words_of := {
	"cuda.sh": {"cuda"},
	"cuda.Dockerfile": {"cuda", "nvidia"},
	"rocm.Dockerfile": {"rocm"},
	"ascend.sh": {"ascend", "npu"},
	"rocm.sh": {"rocm"},
	"both.sh": {"rocm", "cuda"},
}

shows(path, words) if {
	some w in words
	w in object.get(words_of, path, set())
}

shows(path, words) if {
	some w in words
	endswith(w, "*")
	some x in object.get(words_of, path, set())
	startswith(x, trim_suffix(w, "*"))
}

config := {"migrations": [migration]}

# input_of parses [kind, path, lines] triples into an input.
input_of(files) := {
	"documents": [buildgate.parse(f[0], f[1], concat("\n", array.concat(f[2], [""]))) | some f in files],
	"config": config,
}

# one is the input of a single file.
one(kind, path, lines) := input_of([[kind, path, lines]])

# lines are the lines findings point at.
lines(fs) := {f.pos.line | some f in fs}

# at are the [path, line] pairs findings point at.
at(fs) := {[f.path, f.pos.line] | some f in fs}
