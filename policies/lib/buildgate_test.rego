package buildgate.lib_test

import data.buildgate.lib
import data.buildgate.lib.fixtures as fx

test_name_parts if {
	lib.name_parts("export_mooncake") == ["export", "mooncake"]
	lib.name_parts("Mooncake-ROCm.ci") == ["mooncake", "rocm", "ci"]
}

check_source_build_name if {
	lib.source_build_name(fx.migration, "mooncake_source")
	lib.source_build_name(fx.migration, "build-Mooncake")
	not lib.source_build_name(fx.migration, "mooncakes")
	not lib.source_build_name(fx.migration, "mooncake-transfer-engine-cuda13")
	not lib.source_build_name(fx.migration, "Mooncake_Transfer.Engine_ROCm")
	not lib.source_build_name(fx.migration, "a b mooncake")
}

check_compound_needs_more_than_the_token if {
	not lib.compound_source_build_name(fx.migration, "mooncake")
	lib.compound_source_build_name(fx.migration, "mooncake_build")
}

check_source_arg if {
	lib.source_arg(fx.migration, "MOONCAKE_BRANCH")
	lib.source_arg(fx.migration, "mooncake_cache_key")
	not lib.source_arg(fx.migration, "MOONCAKE_VERSION")
	lib.cache_arg("MOONCAKE_CACHE_KEY")
	lib.cache_arg("mooncake-cache-ref")
	not lib.cache_arg("MOONCAKE_REPO")

	# A runtime setting is no cache key (issue 28: sglang's
	# SGLANG_HICACHE_MOONCAKE_CONFIG_PATH), nor is CACHE inside a word.
	not lib.cache_arg("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH")
	not lib.cache_arg("MOONCAKE_CACHE_CONFIG")
	not lib.cache_arg("HICACHE_MOONCAKE")
}

test_expands if {
	lib.expands("git clone ${MOONCAKE_REPO}", "MOONCAKE_REPO")
	lib.expands("$MOONCAKE_REPO/x", "MOONCAKE_REPO")
	not lib.expands("${MOONCAKE_REPOSITORY}", "MOONCAKE_REPO")
	not lib.expands("MOONCAKE_REPO", "MOONCAKE_REPO")
}

test_in_scope if {
	lib.in_scope(fx.migration, "anything/at/all")
	scoped := object.union(fx.migration, {"scope": ["docker/**"]})
	lib.in_scope(scoped, "docker/rocm/Dockerfile")
	not lib.in_scope(scoped, "ci/build.sh")
}

test_positions if {
	lib.before({"line": 1, "column": 9}, {"line": 2, "column": 1})
	lib.before({"line": 2, "column": 1}, {"line": 2, "column": 3})
	not lib.before({"line": 2, "column": 3}, {"line": 2, "column": 3})
	lib.within(
		{"line": 2, "column": 3, "end_line": 2, "end_column": 5},
		{"line": 1, "column": 1, "end_line": 3, "end_column": 1},
	)
}

test_remedy if {
	lib.remedy(fx.migration) == "install the published wheel pinned in requirements/rocm.txt instead"
	lib.remedy(object.union(fx.migration, {"requirements": []})) == "install the published package mooncake-transfer-engine-rocm instead"
}

test_finding_text if {
	f := lib.finding({"path": "a"}, {"text": "x", "pos": lib.start_of_file}, "m")
	f.text == "x"
	g := lib.finding({"path": "a"}, {"name": "N", "pos": lib.start_of_file}, "m")
	g.text == "N"
	c := lib.finding({"path": "a"}, {"name": "git", "words": [{"text": "git"}, {"text": "clone"}], "pos": lib.start_of_file}, "m")
	c.text == "git clone"
	h := lib.finding({"path": "a"}, {"pos": lib.start_of_file}, "m")
	h.text == ""
}

test_scripts_of_every_kind if {
	inp := fx.input_of([
		["shell", "a.sh", ["echo hi"]],
		["dockerfile", "Dockerfile", ["FROM x", "RUN echo a", "RUN [\"echo\", \"b\"]"]],
		["requirements", "requirements.txt", ["numpy"]],
	])
	ss := lib.scripts with input as inp
	count(ss) == 2
}

test_source_build_name if check_source_build_name with input as fx.input_of([])

test_compound_needs_more_than_the_token if check_compound_needs_more_than_the_token with input as fx.input_of([])

test_source_arg if check_source_arg with input as fx.input_of([])

# Issue 32: a stage or target named after the package itself with a
# prefix or suffix is the source build's, whatever names: says; the bare
# package name and a wheel's file name are the published package's.
fa := {"package": "flash-attn", "names": [], "variants": []}

test_package_named_stages if check_package_named_stages with input as {"config": {"migrations": [fa, fx.migration]}}

check_package_named_stages if {
	lib.strongly_named(fa, "flash-attn-builder")
	lib.strongly_named(fa, "build_flash_attn")
	lib.strongly_named(fa, "flashattn-wheel")
	lib.strongly_named(fa, "flash_attn_3_builder")
	lib.strongly_named(fa, "flash-attn-v2-builder")
	lib.initials_named(fa, "build_fa")
	lib.initials_named(fa, "FA-Builder")
	not lib.package_named(fa, "flash-attn")
	not lib.package_named(fa, "fa")
	not lib.package_named(fa, "flash-builder")
	not lib.package_named(fa, "fast-builder")
	lib.package_name(fa, "flash-attn")
	lib.package_name(fa, "flash_attn-2.0.8-cp310-cp310-linux_x86_64")
	lib.package_name(fa, "flash_attn-2.0.8-cp310-cp310-linux_x86_64.whl")
	not lib.package_name(fa, "flash-attn-v2-builder")
	not lib.package_name(fa, "flash_attn_3_builder")
	lib.strongly_named(fx.migration, "mooncake-transfer-engine-rocm-builder")
	lib.package_name(fx.migration, "mooncake-transfer-engine-rocm")
	not lib.source_build_name(fa, "flash-attn-builder") # a stage's evidence is what it does
}

# Issue 32: the allow list: names and variables never the source build's,
# path globs its rules leave alone.
allowing := object.union(fx.migration, {"allow": ["mooncake_kernels", "MOONCAKE_CACHE_DIR", "third_party/**"]})

test_allow_list if check_allow_list with input as {"config": {"migrations": [allowing]}}

check_allow_list if {
	m := allowing
	not lib.source_build_name(m, "mooncake_kernels")
	not lib.source_build_name(m, "Mooncake_Kernels")
	lib.source_build_name(m, "mooncake_source")
	not lib.source_arg(m, "MOONCAKE_CACHE_DIR")
	lib.source_arg(m, "MOONCAKE_CACHE_KEY")
	not lib.source_scope(m, "third_party/mc/Dockerfile")
	lib.source_scope(m, "docker/Dockerfile")
	lib.in_scope(m, "third_party/mc/Dockerfile") # the pin rules still read it
}
