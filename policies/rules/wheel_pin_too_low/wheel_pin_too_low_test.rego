package buildgate.rules.wheel_pin_too_low_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.wheel_pin_too_low as rule

deny(lines) := got if {
	got := rule.deny with input as fx.one("requirements", "requirements/rocm.txt", lines)
}

fires(line) if count(deny([line])) == 1

passes(line) if count(deny([line])) == 0

test_specifiers if {
	passes("mooncake-transfer-engine-rocm >= 0.3.13")
	passes("mooncake-transfer-engine-rocm==0.3.13")
	passes("mooncake-transfer-engine-rocm>=0.3.13,<0.4")
	passes("mooncake-transfer-engine-rocm>0.3.13")
	passes("mooncake-transfer-engine-rocm~=0.3.13")
	passes("mooncake-transfer-engine-rocm===0.3.13")
	passes("mooncake-transfer-engine-rocm>=0.3.13.post1")
	fires("mooncake-transfer-engine-rocm")
	fires("mooncake-transfer-engine-rocm>=0.3.9")
	fires("mooncake-transfer-engine-rocm>0.3.12")
	fires("mooncake-transfer-engine-rocm>=0.3.13rc1")
	fires("mooncake-transfer-engine-rocm==0.3.*")
	fires("mooncake-transfer-engine-rocm~=0.3.0")
	fires("mooncake-transfer-engine-rocm!=0.3.13")
	fires("mooncake-transfer-engine-rocm===0.3.12")
	fires("mooncake-transfer-engine-rocm===latest")
	fires("mooncake-transfer-engine-rocm<=0.3.13")
}

test_other_packages_are_not_checked if {
	passes("mooncake-transfer-engine>=0.1")
	passes("numpy")
}

test_unpinned_message_and_fix if {
	some f in deny(["mooncake-transfer-engine-rocm[store]"])
	f.msg == "mooncake-transfer-engine-rocm is not pinned, so any version can be installed, including ones below 0.3.13; require `mooncake-transfer-engine-rocm >= 0.3.13`"
	f.fix.pos == {"line": 1, "column": 37, "end_line": 1, "end_column": 37}
}

test_witness_in_message if {
	some f in deny(["mooncake-transfer-engine-rocm >0.3.12"])
	f.msg == "`mooncake-transfer-engine-rocm >0.3.12` admits 0.3.12.1, below the minimum 0.3.13; require `mooncake-transfer-engine-rocm >= 0.3.13`"
	f.pos == {"line": 1, "column": 31, "end_line": 1, "end_column": 38}
	f.fix.replacement == ">=0.3.13"
}

# The fix keeps the file's spacing between operator and version.
test_fix_keeps_the_spacing if {
	some f in deny(["mooncake-transfer-engine-rocm >= 0.3.9 ; python_version > '3'"])
	f.fix.replacement == ">= 0.3.13"
	f.fix.pos == {"line": 1, "column": 31, "end_line": 1, "end_column": 39}
}

# Several clauses: replacing them all would drop an upper bound or an
# exclusion the file meant; a person decides (no fix).
test_no_fix_for_several_clauses if {
	some f in deny(["mooncake-transfer-engine-rocm >=0.3.9,<1"])
	not f.fix
}

test_url_requirements_are_another_rule if {
	passes("mooncake-transfer-engine-rocm @ https://example.com/m-0.3.1-py3-none-any.whl")
}

# Issue 14: pip expands ${NAME} from the environment when it installs; the
# pin cannot be shown to meet the minimum, so it is reported (fail closed).
test_version_from_the_environment if {
	got := rule.deny with input as fx.one("requirements", "requirements/rocm.txt", ["mooncake-transfer-engine-rocm>=${MC_VERSION}"])
	count(got) == 1
	some f in got
	contains(f.msg, "holds ${MC_VERSION}, which pip replaces from the environment")
	f.pos.line == 1
}

# Anywhere in the requirement: extras can turn it into a URL
# (mooncake-transfer-engine-rocm[${X}]>=0.3.13 with X="] @ https://…?x=[").
test_environment_anywhere_fails_closed if {
	got := rule.deny with input as fx.one("requirements", "requirements/rocm.txt", [
		"mooncake-transfer-engine-rocm[${MC_EXTRAS}]>=0.3.13",
		"mooncake-transfer-engine-rocm>=0.3.13 ; python_version > \"${PY}\"",
		"numpy>=${NP}",
	])
	fx.lines(got) == {1, 2}
}

# pip installs pre-releases with --pre, PIP_PRE or pip.conf, which
# buildgate cannot see: ==0.3.13.* admits 0.3.13rc1, below 0.3.13, with
# or without a --pre in the files.
test_pre_releases_always_count if {
	got := rule.deny with input as fx.one("requirements", "requirements/rocm.txt", ["mooncake-transfer-engine-rocm==0.3.13.*"])
	count(got) == 1
	some f in got
	contains(f.msg, "admits 0.3.13")
}

# The hashes name the version they were taken from: in hash-checking
# mode the specifier is not changed for the user.
test_no_fix_in_hash_checking_mode if {
	some f in deny(["mooncake-transfer-engine-rocm==0.3.9 --hash=sha256:aaaa"])
	not f.fix
	some g in deny(["--require-hashes", "mooncake-transfer-engine-rocm"])
	not g.fix
}

# Extras whose closing bracket is not right after the last one, or empty
# ones, get no fix (third review of issue 17); a tab keeps being a tab.
test_fix_with_unusual_extras_and_tabs if {
	some f in deny(["mooncake-transfer-engine-rocm[]"])
	not f.fix
	some g in deny(["mooncake-transfer-engine-rocm[a, b ]"])
	not g.fix
	some h in deny(["mooncake-transfer-engine-rocm\t>=\t0.3.9"])
	h.fix.replacement == ">=\t0.3.13"
}

# Issue 30: an exact pin stays exact; a fix that would admit versions the
# file excludes now is marked unsafe (buildgate fix --unsafe-fixes).
test_fix_keeps_an_exact_pin_exact if {
	some f in deny(["mooncake-transfer-engine-rocm==0.3.9"])
	f.fix.replacement == "==0.3.13"
	not f.fix.unsafe
	some g in deny(["mooncake-transfer-engine-rocm >= 0.3.9"])
	not g.fix.unsafe
}

test_fix_that_loosens_is_unsafe if {
	every line in [
		"mooncake-transfer-engine-rocm~=0.3.0",
		"mooncake-transfer-engine-rocm<=0.3.13",
		"mooncake-transfer-engine-rocm!=0.3.13",
		"mooncake-transfer-engine-rocm==0.3.*",
		"mooncake-transfer-engine-rocm===0.3.12",
	] {
		some f in deny([line])
		f.fix.replacement == ">=0.3.13"
		f.fix.unsafe == "the requirement would admit versions it excludes now"
	}
}
