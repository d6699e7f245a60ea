package buildgate.rules.example.pinned_source_build_test

import data.buildgate.rules.example.pinned_source_build as rule

findings(kind, path, lines) := got if {
	doc := buildgate.parse(kind, path, concat("\n", array.concat(lines, [""])))
	got := rule.deny with input as {"documents": [doc], "config": {"migrations": []}}
}

lines_of(fs) := {f.loc.pos.line | some f in fs}

test_floating_clones_that_are_built if {
	lines_of(findings("shell", "build.sh", [
		"git clone https://github.com/ROCm/rocshmem.git /src/rocshmem", # 1: built by make -C
		"make -C /src/rocshmem install",
		"git clone git@github.com:example/tool.git", # 3: built after cd
		"cd tool && cmake -B build && cmake --build build",
		"cd ..",
		"git clone https://github.com/example/pinned.git p", # 6: pinned after
		"git -C p checkout 0123456789abcdef0123456789abcdef01234567",
		"make -C p",
		"git clone https://github.com/example/unbuilt.git u", # 9: never built
		"curl -L https://github.com/example/x/archive/v1.tar.gz | tar xz -C /opt/x --strip-components=1", # 10: a tag
		"make -C /opt/x",
	])) == {1, 3}
}

test_dockerfile_workdir if {
	lines_of(findings("dockerfile", "Dockerfile", [
		"FROM base",
		"WORKDIR /w",
		"RUN git clone https://github.com/example/lib.git && cd lib && pip install .", # 3
	])) == {3}
}

test_message_names_the_repository if {
	some f in findings("shell", "b.sh", ["git clone https://GitHub.com:443/Example/Tool.git t && make -C t"])
	contains(f.msg, "github.com/example/tool is built from whatever")
}
