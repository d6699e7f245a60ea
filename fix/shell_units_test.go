package fix

import (
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

// Issue 30, item 2: units left half removed. Each unit with variants:
// the shape vLLM's real ci-bake-rocm.sh and the reproductions
// have, and the neighbours that must stay.
func TestShellUnits(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	runPlans(t, safe, []planCase{
		{
			name:    "a for over only source-build names goes whole, never `for var in; do`",
			src:     "pins() {\n    local val=\"\"\n    for var in A_BRANCH B_BRANCH; do\n        echo \"$var\"\n    done\n\n    # The toolchain pins, read the same way.\n    for var in MOONCAKE_BRANCH MOONCAKE_GO_VERSION; do\n        val=$(printf '%s' \"${var}\")\n        if [[ -n \"${val}\" ]]; then\n            export \"${var}=${val}\"\n        fi\n    done\n}\npins\n",
			needles: [][2]string{{ruleArg, "MOONCAKE_BRANCH M"}, {ruleArg, "MOONCAKE_GO_VERSION;"}},
			// val was only set in the loop: its declaration goes too.
			want: "pins() {\n    for var in A_BRANCH B_BRANCH; do\n        echo \"$var\"\n    done\n}\npins\n",
		},
		{
			name:    "variant: a for over source-build names at the top, with a comment block",
			src:     "set -e\n\n# Mooncake pins\nfor v in MC_REPO MC_BRANCH; do\n  echo \"$v=${!v:-}\"\ndone\n\necho done\n",
			needles: [][2]string{{ruleArg, "MC_REPO "}, {ruleArg, "MC_BRANCH;"}},
			want:    "set -e\n\necho done\n",
		},
		{
			name:     "variant: a for over source-build names whose body pushes: unsafe, declined",
			src:      "for t in mc-ci mc-src; do\n  docker push \"registry/app:latest\"\ndone\necho done\n",
			needles:  [][2]string{{ruleStage, "mc-ci "}, {ruleStage, "mc-src;"}},
			want:     "for t in mc-ci mc-src; do\n  docker push \"registry/app:latest\"\ndone\necho done\n",
			declined: 2,
		},
		{
			name:    "an if on a variable only removed commands set goes with its body (the key, its export and echo)",
			src:     "keys() {\n    local mc_branch=\"\"\n    local nixl=\"\"\n    nixl=$(printf x)\n    mc_branch=$(printf '%s' \"MC_BRANCH\")\n    echo \"$nixl\"\n\n    if [[ -n \"${mc_branch}\" ]]; then\n        MC_KEY=$(printf '%s' \"${mc_branch}\" | sha256sum | cut -c1-16)\n        export MC_KEY\n        echo \"Mooncake cache key: ${MC_KEY}\"\n    fi\n}\nkeys\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH\")"}, {ruleCache, "MC_KEY=$("}, {ruleCache, "MC_KEY\n"}, {ruleCache, "MC_KEY}\""}},
			want:    "keys() {\n    local nixl=\"\"\n    nixl=$(printf x)\n    echo \"$nixl\"\n}\nkeys\n",
		},
		{
			name:    "variant: an if on a source-build variable anded with another test, calling the script's functions",
			src:     "ref_exists() { docker buildx imagetools inspect \"$1\" >/dev/null 2>&1; }\nadd() { T+=(\"$1\"); }\nmode=missing\nif [[ \"${mode}\" != \"always\" && -n \"${MC_KEY:-}\" ]]; then\n    ref=\"cache:mc-${MC_KEY}\"\n    if ref_exists \"${ref}\"; then\n        echo \"exists: ${ref}\"\n    else\n        add \"mc-rocm-ci\"\n    fi\nfi\necho \"$mode\"\n",
			needles: [][2]string{{ruleCache, "MC_KEY:-}\" ]]"}, {ruleCache, "MC_KEY}\"\n"}, {ruleStage, "mc-rocm-ci"}},
			want:    "ref_exists() { docker buildx imagetools inspect \"$1\" >/dev/null 2>&1; }\nadd() { T+=(\"$1\"); }\nmode=missing\necho \"$mode\"\n",
		},
		{
			name:     "variant: an if true when the variable is empty (-z) stays",
			src:      "if [[ -z \"${MC_KEY:-}\" ]]; then\n    echo \"no key\"\nfi\necho done\n",
			needles:  [][2]string{{ruleCache, "MC_KEY"}},
			want:     "if [[ -z \"${MC_KEY:-}\" ]]; then\n    echo \"no key\"\nfi\necho done\n",
			declined: 1,
		},
		{
			name:     "variant: an if on the source build whose body does other work is an unsafe fix",
			src:      "if [[ -n \"${MC_BRANCH:-}\" ]]; then\n    apt-get install -y libibverbs1\nfi\necho done\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH"}},
			want:     "if [[ -n \"${MC_BRANCH:-}\" ]]; then\n    apt-get install -y libibverbs1\nfi\necho done\n",
			declined: 1,
		},
		{
			name:     "an export stays while an assignment of its variable stays",
			src:      "MC_KEY=$(curl -s https://example.com/key)\nexport MC_KEY\n./build.sh\n",
			needles:  [][2]string{{ruleCache, "MC_KEY=$("}, {ruleCache, "MC_KEY\n./"}},
			want:     "MC_KEY=$(curl -s https://example.com/key)\nexport MC_KEY\n./build.sh\n",
			declined: 2,
		},
		{
			name:    "variant: assignment, export and echo of a key go together",
			src:     "MC_KEY=$(printf '%s' \"v1\" | sha256sum | cut -c1-16)\nexport MC_KEY\necho \"key: ${MC_KEY}\"\n./build.sh\n",
			needles: [][2]string{{ruleCache, "MC_KEY=$("}, {ruleCache, "MC_KEY\necho"}, {ruleCache, "MC_KEY}\""}},
			want:    "./build.sh\n",
		},
	})
	// With --unsafe-fixes the unsafe units go.
	src := "if [[ -n \"${MC_BRANCH:-}\" ]]; then\n    apt-get install -y libibverbs1\nfi\necho done\n"
	fs := []finding.Finding{on(t, ruleArg, src, "MC_BRANCH")}
	p := Shell("ci.sh", []byte(src), fs, Options{})
	if len(p.Declined) != 1 || !p.Declined[0].Unsafe || !strings.Contains(p.Declined[0].Reason, "--unsafe-fixes") {
		t.Errorf("safe: %+v", p.Declined)
	}
	p = Shell("ci.sh", []byte(src), fs, Options{Unsafe: true})
	if got, _ := Apply([]byte(src), p.Edits); string(got) != "echo done\n" {
		t.Errorf("unsafe: %q", got)
	}
}

// Refusal reasons cite the user's file, not the fixed text (issue 30,
// item 5): the line of a read left behind is the line it has now.
func TestShellRefusalCitesTheUsersLine(t *testing.T) {
	src := "A=1\nB=2\nMC_X=$(printf v)\nC=3\necho \"$MC_X\" other\n"
	p := Shell("ci.sh", []byte(src), []finding.Finding{on(t, ruleArg, src, "MC_X=")}, Options{})
	if len(p.Declined) != 1 || !strings.Contains(p.Declined[0].Reason, "(line 5)") {
		t.Errorf("%+v", p.Declined)
	}
}

// Review of issue 30 (red team): what a unit's removal must not change.
func TestShellUnitsReview(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	runPlans(t, safe, []planCase{
		{
			name:     "the if ends a function whose status a caller reads",
			src:      "check() {\n    grep -q needle /etc/hostname\n    if [[ -n \"${MC_KEY:-}\" ]]; then\n        echo \"key ${MC_KEY}\"\n    fi\n}\nif check; then echo found; fi\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:     "check() {\n    grep -q needle /etc/hostname\n    if [[ -n \"${MC_KEY:-}\" ]]; then\n        echo \"key ${MC_KEY}\"\n    fi\n}\nif check; then echo found; fi\n",
			declined: 2,
		},
		{
			name:     "variant: $? read right after the if",
			src:      "grep -q needle /etc/hostname\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    echo \"key ${MC_KEY}\"\nfi\necho \"status $?\"\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:     "grep -q needle /etc/hostname\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    echo \"key ${MC_KEY}\"\nfi\necho \"status $?\"\n",
			declined: 2,
		},
		{
			name:    "variant: an if after a command that always succeeds goes",
			src:     "check() {\n    echo checking\n    if [[ -n \"${MC_KEY:-}\" ]]; then\n        echo \"key ${MC_KEY}\"\n    fi\n}\ncheck\n",
			needles: [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:    "check() {\n    echo checking\n}\ncheck\n",
		},
		{
			name:     "a loop's variable read after the loop keeps the loop",
			src:      "set -u\nfor v in MC_BRANCH MC_KEY; do\n    echo \"passing $v\"\ndone\necho \"last: $v\"\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH "}, {ruleCache, "MC_KEY;"}},
			want:     "set -u\nfor v in MC_BRANCH MC_KEY; do\n    echo \"passing $v\"\ndone\necho \"last: $v\"\n",
			declined: 2,
		},
		{
			name:     "variant: a loop that counts into a variable the script keeps is unsafe",
			src:      "count=0\nfor v in MC_BRANCH MC_KEY; do\n    count=$((count+1))\ndone\necho \"$count\"\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH "}, {ruleCache, "MC_KEY;"}},
			want:     "count=0\nfor v in MC_BRANCH MC_KEY; do\n    count=$((count+1))\ndone\necho \"$count\"\n",
			declined: 2,
		},
		{
			name:    "variant: a loop whose variable is set again before it is read goes",
			src:     "for v in MC_BRANCH MC_KEY; do\n    echo \"passing $v\"\ndone\nv=other\necho \"$v\"\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH "}, {ruleCache, "MC_KEY;"}},
			want:    "v=other\necho \"$v\"\n",
		},
	})
}

// Review of issue 30 (real-repo sweep: nixl's .gitlab/build-rocm.sh): a
// subshell or && chain that is the source build, with variants.
func TestShellBuildChains(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	clone := "git clone https://github.com/kvcache-ai/Mooncake.git"
	runPlans(t, safe, []planCase{
		{
			name:    "a subshell that clones and builds goes",
			src:     "set -e\n(\n    cd /tmp &&\n    " + clone + " &&\n    cd Mooncake && mkdir build && cd build && cmake .. && ninja install\n)\necho done\n",
			needles: [][2]string{{ruleStep, "git clone"}, {ruleStep, "cmake"}, {ruleStep, "ninja"}},
			want:    "set -e\necho done\n",
		},
		{
			name:     "variant: a chain in the script's own shell that changes its directory stays",
			src:      "set -e\ncd /tmp && " + clone + " && make -C Mooncake\nls\n",
			needles:  [][2]string{{ruleStep, "git clone"}, {ruleStep, "make"}},
			want:     "set -e\ncd /tmp && " + clone + " && make -C Mooncake\nls\n",
			declined: 2,
		},
		{
			name:    "variant: a chain without cd goes",
			src:     "set -e\n" + clone + " /opt/mc && make -C /opt/mc install\necho done\n",
			needles: [][2]string{{ruleStep, "git clone"}, {ruleStep, "make"}},
			want:    "set -e\necho done\n",
		},
		{
			name:     "variant: a test true without the key, and a pull of its default, stay",
			src:      "[[ -n \"${MC_KEY:-latest}\" ]] && docker pull \"x:${MC_KEY:-latest}\"\necho done\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-latest}\" ]]"}, {ruleCache, "MC_KEY:-latest}\"\n"}},
			want:     "[[ -n \"${MC_KEY:-latest}\" ]] && docker pull \"x:${MC_KEY:-latest}\"\necho done\n",
			declined: 2,
		},
		{
			name:     "variant: a subshell that also does other work stays",
			src:      "(\n    cd /tmp && " + clone + " && make -C Mooncake && docker push registry/app:latest\n)\necho done\n",
			needles:  [][2]string{{ruleStep, "git clone"}, {ruleStep, "make"}},
			want:     "(\n    cd /tmp && " + clone + " && make -C Mooncake && docker push registry/app:latest\n)\necho done\n",
			declined: 2,
		},
	})
}

// Review of issue 30 (red team): a removed assignment whose variable a
// kept read would now see with an older value.
func TestShellOverwrittenAssignment(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	runPlans(t, safe, []planCase{
		{
			name:     "read after a removed overwrite",
			src:      "TAG=\"\"\nread -r TAG < /etc/hostname || true\nTAG=\"${MC_KEY}\"\ndocker pull \"x:${TAG}\"\n",
			needles:  [][2]string{{ruleCache, "MC_KEY"}},
			want:     "TAG=\"\"\nread -r TAG < /etc/hostname || true\nTAG=\"${MC_KEY}\"\ndocker pull \"x:${TAG}\"\n",
			declined: 1,
		},
		{
			name:    "variant: set again before it is read",
			src:     "TAG=a\nTAG=\"${MC_KEY}\"\nTAG=b\necho \"${TAG}\"\n",
			needles: [][2]string{{ruleCache, "MC_KEY"}},
			want:    "TAG=a\nTAG=b\necho \"${TAG}\"\n",
		},
		{
			name:    "variant: read before the removed assignment only",
			src:     "TAG=a\necho \"${TAG}\"\nTAG=\"${MC_KEY}\"\n",
			needles: [][2]string{{ruleCache, "MC_KEY"}},
			want:    "TAG=a\necho \"${TAG}\"\n",
		},
	})
}

// Second review of issue 30: statuses read by return, exit and
// PIPESTATUS; a loop variable set before the loop; what a unit sets
// other than by a plain assignment.
func TestShellUnitsSecondReview(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	gate := "if [[ -n \"${MC_KEY:-}\" ]]; then\n    echo \"key ${MC_KEY}\"\n"
	keep := func(name, src string, n int) planCase {
		return planCase{name: name, src: src, needles: [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}}, want: src, declined: n}
	}
	runPlans(t, safe, []planCase{
		keep("a bare return after the if", "check() {\n    grep -q x /etc/hostname\n"+gate+"    fi\n    return\n}\ncheck\n", 2),
		keep("variant: a bare exit", "grep -q x /etc/hostname\n"+gate+"fi\nexit\n", 2),
		keep("variant: PIPESTATUS", "grep -q x /etc/hostname | cat\n"+gate+"fi\necho \"${PIPESTATUS[0]}\"\n", 2),
		{
			name:     "a loop variable set before the loop and read after it",
			src:      "v=none\nfor v in MC_BRANCH MC_KEY; do\n    echo \"passing $v\"\ndone\necho \"last=$v\"\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH "}, {ruleCache, "MC_KEY;"}},
			want:     "v=none\nfor v in MC_BRANCH MC_KEY; do\n    echo \"passing $v\"\ndone\necho \"last=$v\"\n",
			declined: 2,
		},
		{
			name:     "a unit that exports PATH is unsafe",
			src:      "if [[ -n \"${MC_KEY:-}\" ]]; then\n    export PATH=\"/opt/tools/bin:$PATH\"\n    echo \"key ${MC_KEY}\"\nfi\nmytool\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:     "if [[ -n \"${MC_KEY:-}\" ]]; then\n    export PATH=\"/opt/tools/bin:$PATH\"\n    echo \"key ${MC_KEY}\"\nfi\nmytool\n",
			declined: 2,
		},
		{
			name:     "variant: arithmetic on a counter the script keeps",
			src:      "count=0\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    : $(( count += 1 ))\n    echo \"key ${MC_KEY}\"\nfi\necho \"$count\"\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:     "count=0\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    : $(( count += 1 ))\n    echo \"key ${MC_KEY}\"\nfi\necho \"$count\"\n",
			declined: 2,
		},
		{
			name:     "variant: read into a variable the script keeps",
			src:      "tag=a\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    read -r tag <<< \"${MC_KEY}\"\nfi\necho \"$tag\"\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\"\nfi"}},
			want:     "tag=a\nif [[ -n \"${MC_KEY:-}\" ]]; then\n    read -r tag <<< \"${MC_KEY}\"\nfi\necho \"$tag\"\n",
			declined: 2,
		},
	})
}

// Units of other shapes: a case on the source build's variable, an if in
// short (`test && …`), with variants that must stay.
func TestShellUnitsOtherShapes(t *testing.T) {
	safe := func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }
	runPlans(t, safe, []planCase{
		{
			name:    "a case on the source build's variable with a pattern",
			src:     "case \"${MC_BRANCH:-}\" in\n    v0.*)\n        echo \"old ${MC_BRANCH}\"\n        ;;\nesac\necho done\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH:-"}, {ruleArg, "MC_BRANCH}\""}},
			// v0.* is a pattern, not a literal: the case stays (its
			// branch's echo, a command line of the source build, goes).
			want:     "case \"${MC_BRANCH:-}\" in\n    v0.*)\n        ;;\nesac\necho done\n",
			declined: 1,
		},
		{
			name:    "variant: literal patterns",
			src:     "case \"${MC_BRANCH:-}\" in\n    main|v1)\n        echo \"branch ${MC_BRANCH}\"\n        ;;\nesac\necho done\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH:-"}, {ruleArg, "MC_BRANCH}\""}},
			want:    "echo done\n",
		},
		{
			name:     "variant: a default branch runs without the source build",
			src:      "case \"${MC_BRANCH:-}\" in\n    main)\n        echo \"branch ${MC_BRANCH}\"\n        ;;\n    *)\n        echo none\n        ;;\nesac\necho done\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH:-"}, {ruleArg, "MC_BRANCH}\""}},
			want:     "case \"${MC_BRANCH:-}\" in\n    main)\n        ;;\n    *)\n        echo none\n        ;;\nesac\necho done\n",
			declined: 1,
		},
		{
			name:    "an if in short goes",
			src:     "set -e\n[[ -n \"${MC_KEY:-}\" ]] && echo \"key ${MC_KEY}\"\necho done\n",
			needles: [][2]string{{ruleCache, "MC_KEY:-"}, {ruleCache, "MC_KEY}\""}},
			want:    "set -e\necho done\n",
		},
		{
			name:     "variant: an if in short that pushes is unsafe",
			src:      "[[ -n \"${MC_KEY:-}\" ]] && docker push registry/app:latest\necho done\n",
			needles:  [][2]string{{ruleCache, "MC_KEY:-"}},
			want:     "[[ -n \"${MC_KEY:-}\" ]] && docker push registry/app:latest\necho done\n",
			declined: 1,
		},
	})
}
