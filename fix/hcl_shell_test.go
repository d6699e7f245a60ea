package fix

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

// on is a finding of a rule at the first occurrence of needle in src (its
// line and code-point column), as the built-in pack would report it.
func on(t *testing.T, rule, src, needle string) finding.Finding {
	t.Helper()
	i := strings.Index(src, needle)
	if i < 0 {
		t.Fatalf("%q not in the source", needle)
	}
	line := strings.Count(src[:i], "\n") + 1
	col := len([]rune(src[strings.LastIndex(src[:i], "\n")+1:i])) + 1
	return finding.Finding{Name: rule, Pos: finding.Pos{Line: line, Column: col, EndLine: line, EndColumn: col + 1}}
}

type planCase struct {
	name     string
	src      string
	needles  [][2]string // rule, text a finding starts at
	want     string
	declined int
}

func runPlans(t *testing.T, plan func([]byte, []finding.Finding) Plan, cases []planCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fs []finding.Finding
			for _, n := range c.needles {
				fs = append(fs, on(t, n[0], c.src, n[1]))
			}
			p := plan([]byte(c.src), fs)
			got, err := Apply([]byte(c.src), p.Edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if len(p.Declined) != c.declined || len(p.Fixed)+len(p.Declined) != len(fs) {
				t.Errorf("%d fixed, %d declined %+v; want %d declined", len(p.Fixed), len(p.Declined), p.Declined, c.declined)
			}
			if again := plan(got, nil); len(again.Edits) != 0 {
				t.Errorf("a second fix without findings edits: %+v", again.Edits)
			}
		})
	}
}

func TestHCLRemovals(t *testing.T) {
	runPlans(t, func(src []byte, fs []finding.Finding) Plan { return HCL("docker-bake.hcl", src, fs) }, []planCase{
		// Fourth review of issue 17: neighbours removed inline made
		// overlapping edits and the whole file was refused.
		{
			name:    "neighbouring elements on one line go as one run",
			src:     "group \"default\" {\n  targets = [\"a\", \"mc-one\", \"mc-two\", \"b\"]\n}\ngroup \"ci\" {\n  targets = [\"a\", \"mc-one\", \"mc-two\"]\n}\n",
			needles: [][2]string{{ruleStage, `mc-one", "mc-two", "b`}, {ruleStage, `mc-two", "b`}, {ruleStage, `mc-one", "mc-two"]`}, {ruleStage, `mc-two"]`}},
			want:    "group \"default\" {\n  targets = [\"a\", \"b\"]\n}\ngroup \"ci\" {\n  targets = [\"a\"]\n}\n",
		},
		{
			name:     "a whole list on one line is not emptied",
			src:      "group \"default\" {\n  targets = [\"mc-one\", \"mc-two\"]\n}\n",
			needles:  [][2]string{{ruleStage, `mc-one`}, {ruleStage, `mc-two`}},
			want:     "group \"default\" {\n  targets = [\"mc-one\", \"mc-two\"]\n}\n",
			declined: 2,
		},
		{
			name:     "inherits keeps it",
			src:      "target \"mc-one\" {\n  tags = [\"x\"]\n}\n\ntarget \"app\" {\n  inherits = [\"mc-one\"]\n}\n",
			needles:  [][2]string{{ruleStage, `mc-one" {`}},
			want:     "target \"mc-one\" {\n  tags = [\"x\"]\n}\n\ntarget \"app\" {\n  inherits = [\"mc-one\"]\n}\n",
			declined: 1,
		},
		{
			name:    "a string that is a tag, not a target, does not keep a removed target",
			src:     "target \"mc-one\" {\n  tags = [\"x\"]\n}\n\ntarget \"app\" {\n  tags = [\"mc-one\"]\n  target = \"mc-one\"\n}\n",
			needles: [][2]string{{ruleStage, `mc-one" {`}},
			want:    "target \"app\" {\n  tags = [\"mc-one\"]\n  target = \"mc-one\"\n}\n",
		},
		{
			name: "blocks, a list element on its own line, an object item, an element inline",
			src: `variable "A" {
  default = ""
}

# the source build's branch
variable "MC_BRANCH" {
  default = ""
}

function "cache_from" {
  params = []
  result = compact([
    A != "" ? "x:${A}" : "",
    MC_BRANCH != "" ? "x:mc-${MC_BRANCH}" : "",
  ])
}

target "_ci" {
  args = {
    max_jobs  = A
    MC_BRANCH = MC_BRANCH
  }
}

target "mc-ci" {
  target = "export_mc"
}

group "all" {
  targets = ["a-ci", "mc-ci", "b-ci"]
}
`,
			needles: [][2]string{{ruleArg, `"MC_BRANCH" {`}, {ruleArg, `MC_BRANCH != ""`}, {ruleArg, `MC_BRANCH = MC_BRANCH`}, {ruleStage, `"mc-ci" {`}, {ruleStage, `"mc-ci", "b-ci"`}},
			want: `variable "A" {
  default = ""
}

function "cache_from" {
  params = []
  result = compact([
    A != "" ? "x:${A}" : "",
  ])
}

target "_ci" {
  args = {
    max_jobs  = A
  }
}

group "all" {
  targets = ["a-ci", "b-ci"]
}
`,
		},
		{
			name:     "a removed variable still used: nothing changes",
			src:      "variable \"MC\" {\n  default = \"\"\n}\n\ntarget \"t\" {\n  args = { X = MC }\n}\n",
			needles:  [][2]string{{ruleArg, `"MC" {`}},
			want:     "variable \"MC\" {\n  default = \"\"\n}\n\ntarget \"t\" {\n  args = { X = MC }\n}\n",
			declined: 1,
		},
		{
			name:     "a removed target still named by a context or a traversal: nothing changes",
			src:      "target \"mc-ci\" {\n  target = \"export_mc\"\n}\n\ntarget \"base\" {\n  contexts = {\n    mc = \"target:mc-ci\"\n  }\n  tags = target.mc-ci.tags\n}\n",
			needles:  [][2]string{{ruleStage, `"mc-ci" {`}},
			want:     "target \"mc-ci\" {\n  target = \"export_mc\"\n}\n\ntarget \"base\" {\n  contexts = {\n    mc = \"target:mc-ci\"\n  }\n  tags = target.mc-ci.tags\n}\n",
			declined: 1,
		},
		{
			name:     "a list inside an expression is an argument, not a list to cut",
			src:      "target \"t\" {\n  tags = [join(\":\", [\"rocm/ci\", MC_BRANCH])]\n}\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH]"}},
			want:     "target \"t\" {\n  tags = [join(\":\", [\"rocm/ci\", MC_BRANCH])]\n}\n",
			declined: 1,
		},
		{
			name:     "the last element inline, and a finding on a plain attribute",
			src:      "target \"t\" {\n  target = \"export_mc\"\n  tags = [\"a\", \"mc\"]\n}\n",
			needles:  [][2]string{{ruleStage, `"export_mc"`}, {ruleStage, `"mc"]`}},
			want:     "target \"t\" {\n  target = \"export_mc\"\n  tags = [\"a\"]\n}\n",
			declined: 1,
		},
	})
}

func TestShellRemovals(t *testing.T) {
	src := `#!/bin/bash
STAGES="base mc_source build_mc final"
meta() { printf '%s=%s\n' "$1" "$2"; }

pairs() {
    meta "a.commit" "${A_BRANCH:-}"
    meta "mc.commit" "${MC_BRANCH:-}"
}

keys() {
    local a=""
    local mc=""

    mc=$(git ls-remote x "MC_BRANCH")
    if [[ -n "${mc}" ]]; then
        MC_KEY=$(printf '%s' "${mc}" | sha256sum)
        export MC_KEY
        echo "key: ${MC_KEY}"
    fi
}

ref() {
    case "$1" in
        a-ci)
            echo a
            ;;
        mc-ci)
            echo "${MC_KEY}"
            ;;
    esac
}

for v in A_BRANCH MC_BRANCH; do
    echo "$v"
done
docker buildx bake a-ci mc-ci
`
	want := `#!/bin/bash
STAGES="base final"
meta() { printf '%s=%s\n' "$1" "$2"; }

pairs() {
    meta "a.commit" "${A_BRANCH:-}"
}

keys() {
    local a=""
}

ref() {
    case "$1" in
        a-ci)
            echo a
            ;;
    esac
}

for v in A_BRANCH; do
    echo "$v"
done
docker buildx bake a-ci mc-ci
`
	runPlans(t, func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }, []planCase{
		{
			name: "list words, a command line, an if around only the source build, a case branch, a loop word",
			src:  src,
			needles: [][2]string{
				{ruleStage, "mc_source "}, {ruleStage, "build_mc "},
				{ruleCache, `"mc.commit"`}, {ruleArg, `MC_BRANCH:-}"`},
				{ruleArg, `MC_BRANCH")`}, {ruleCache, `MC_KEY=$(`}, {ruleCache, `MC_KEY
`}, {ruleCache, "MC_KEY}\"\n    fi"},
				{ruleStage, "mc-ci)"},
				{ruleArg, "MC_BRANCH; do"},
				{ruleStage, "mc-ci\n"},
			},
			want:     want,
			declined: 1, // the bake command does more than the source build
		},
		{
			name:     "a variable only a removed command set is still read: nothing changes",
			src:      "X=$(echo MC_BRANCH)\necho \"$X\" other\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH"}},
			want:     "X=$(echo MC_BRANCH)\necho \"$X\" other\n",
			declined: 1,
		},
		{
			name:     "an if whose condition runs a command stays",
			src:      "if grep -q x f; then\n    echo \"${MC_KEY}\"\nfi\n",
			needles:  [][2]string{{ruleCache, "MC_KEY"}},
			want:     "if grep -q x f; then\n    echo \"${MC_KEY}\"\nfi\n",
			declined: 1,
		},
	})
	if bash, err := exec.LookPath("bash"); err == nil {
		f := filepath.Join(t.TempDir(), "fixed.sh")
		if err := os.WriteFile(f, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, out)
		}
	}
}

// The red-team cases of issue 17's review, each with what must happen.
func TestShellReview(t *testing.T) {
	runPlans(t, func(src []byte, fs []finding.Finding) Plan { return Shell("ci.sh", src, fs, Options{}) }, []planCase{
		{
			name:    "a suppression comment, and a comment after the removed line, stay",
			src:     "set -e\n\nexport MC_KEY\n# buildgate:ignore BG102 -- the nightly bisect job\n\necho \"${MC_BRANCH}\"\n",
			needles: [][2]string{{ruleCache, "MC_KEY"}},
			want:    "set -e\n\n# buildgate:ignore BG102 -- the nightly bisect job\n\necho \"${MC_BRANCH}\"\n",
		},
		// Fourth review of issue 17: reads that are not expansions.
		{
			name:     "a variable tested with -v, printed with declare -p, or passed bare with --build-arg stays",
			src:      "MC_BRANCH=\"v1\"\n[[ -v MC_BRANCH ]] && echo set\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH="}},
			want:     "MC_BRANCH=\"v1\"\n[[ -v MC_BRANCH ]] && echo set\n",
			declined: 1,
		},
		{
			name:     "declare -p",
			src:      "export MC_BRANCH=\"v1\"\ndeclare -p MC_BRANCH\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH="}},
			want:     "export MC_BRANCH=\"v1\"\ndeclare -p MC_BRANCH\n",
			declined: 1,
		},
		{
			name:     "--build-arg NAME passes the environment's value",
			src:      "export MC_BRANCH=\"v1\"\ndocker build --build-arg MC_BRANCH .\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH="}},
			want:     "export MC_BRANCH=\"v1\"\ndocker build --build-arg MC_BRANCH .\n",
			declined: 1,
		},
		{
			name:     "a prefix expansion lists it",
			src:      "MC_BRANCH=\"v1\"\nfor v in \"${!MC_@}\"; do echo \"$v\"; done\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH="}},
			want:     "MC_BRANCH=\"v1\"\nfor v in \"${!MC_@}\"; do echo \"$v\"; done\n",
			declined: 1,
		},
		{
			name:     "a sourced file may read it",
			src:      "export MC_BRANCH=\"v1\"\nsource ./common.sh\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH="}},
			want:     "export MC_BRANCH=\"v1\"\nsource ./common.sh\n",
			declined: 1,
		},
		{
			name:    "a comment naming it does not keep it",
			src:     "MC_BRANCH=\"v1\"\n\n# MC_BRANCH was the source build's branch\necho done\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH="}},
			want:    "# MC_BRANCH was the source build's branch\necho done\n",
		},
		{
			name:    "the #! line stays when the paragraph under it goes",
			src:     "#!/bin/bash\nMC_BRANCH=\"v0.3.13\"\n\necho done\n",
			needles: [][2]string{{ruleArg, "MC_BRANCH="}},
			want:    "#!/bin/bash\n\necho done\n",
		},
		{
			name:     "a write, a substitution that runs a program, a function with a side effect: they stay",
			src:      "set -e\nf() {\n    EXTRA+=(\"$1\")\n    WITH_DEPS=1\n}\necho \"built ${MC_BRANCH}\" > info.txt\nLOG=\"$(docker buildx bake all --set x=${MC_BRANCH})\"\necho \"n=$(./tag.sh) mc=${MC_BRANCH}\"\nf \"mooncake-rocm-ci\"\necho \"$LOG $WITH_DEPS\"\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH}\" >"}, {ruleArg, "MC_BRANCH})"}, {ruleArg, "MC_BRANCH}\"\nf"}, {ruleStage, "mooncake-rocm-ci"}},
			want:     "set -e\nf() {\n    EXTRA+=(\"$1\")\n    WITH_DEPS=1\n}\necho \"built ${MC_BRANCH}\" > info.txt\nLOG=\"$(docker buildx bake all --set x=${MC_BRANCH})\"\necho \"n=$(./tag.sh) mc=${MC_BRANCH}\"\nf \"mooncake-rocm-ci\"\necho \"$LOG $WITH_DEPS\"\n",
			declined: 4,
		},
		{
			name:     "the last echo of a function stays when what would be left last can fail",
			src:      "ready() {\n    [[ -f /opt/x ]]\n    echo \"mc ${MC_BRANCH:-none}\"\n}\nready || make\n",
			needles:  [][2]string{{ruleArg, "MC_BRANCH:-"}},
			want:     "ready() {\n    [[ -f /opt/x ]]\n    echo \"mc ${MC_BRANCH:-none}\"\n}\nready || make\n",
			declined: 1,
		},
		{
			name:     "arrays and lists with tabs or newlines lose no other word",
			src:      "ROCM_STAGES=(base mooncake_source ci_base)\nexport S=\"base\tmooncake_source\tci_base\"\n./build.sh\n",
			needles:  [][2]string{{ruleStage, "mooncake_source ci"}, {ruleStage, "mooncake_source\tci"}},
			want:     "ROCM_STAGES=(base mooncake_source ci_base)\nexport S=\"base\tmooncake_source\tci_base\"\n./build.sh\n",
			declined: 2,
		},
		{
			name:     "a branch another falls through into (;&) stays",
			src:      "case \"$1\" in\n    nixl-rocm-ci)\n        echo nixl\n        ;&\n    mooncake-rocm-ci)\n        echo mc\n        ;;\n    *)\n        exit 1\n        ;;\nesac\n",
			needles:  [][2]string{{ruleStage, "mooncake-rocm-ci)"}},
			want:     "case \"$1\" in\n    nixl-rocm-ci)\n        echo nixl\n        ;&\n    mooncake-rocm-ci)\n        echo mc\n        ;;\n    *)\n        exit 1\n        ;;\nesac\n",
			declined: 1,
		},
		{
			name:     "an assignment that is a command's environment stays with the command",
			src:      "MOONCAKE_BRANCH=\"${MOONCAKE_BRANCH:-v0.3.13}\" ./scripts/build-all-images.sh\necho built\n",
			needles:  [][2]string{{ruleArg, "MOONCAKE_BRANCH="}},
			want:     "MOONCAKE_BRANCH=\"${MOONCAKE_BRANCH:-v0.3.13}\" ./scripts/build-all-images.sh\necho built\n",
			declined: 1,
		},
		{
			name:    "a list in an export loses its word, not the export",
			src:     "export CI_BASE_STAGES=\"base mooncake_source ci_base\"\n./ci/build-stages.sh\n",
			needles: [][2]string{{ruleStage, "mooncake_source"}},
			want:    "export CI_BASE_STAGES=\"base ci_base\"\n./ci/build-stages.sh\n",
		},
		{
			name:     "a word in a command's string is the command's",
			src:      "bash -c \"docker buildx bake -f docker/ci-rocm.hcl mooncake-rocm-ci\"\n",
			needles:  [][2]string{{ruleStage, "mooncake-rocm-ci"}},
			want:     "bash -c \"docker buildx bake -f docker/ci-rocm.hcl mooncake-rocm-ci\"\n",
			declined: 1,
		},
		{
			name:    "side by side words of a list and of a loop",
			src:     "S=\"base mooncake_source export_mooncake\"\nfor t in mooncake-rocm-ci mooncake_source nixl-rocm-ci; do echo \"$t\"; done\n",
			needles: [][2]string{{ruleStage, "mooncake_source "}, {ruleStage, "export_mooncake\""}, {ruleStage, "mooncake-rocm-ci "}, {ruleStage, "mooncake_source nixl"}},
			want:    "S=\"base\"\nfor t in nixl-rocm-ci; do echo \"$t\"; done\n",
		},
		{
			name:     "a variable read in arithmetic, or only exported, is still read",
			src:      "mc_jobs=\"${MOONCAKE_BRANCH:+8}\"\ntotal=$(( 4 + mc_jobs ))\necho \"$total\"\nmc_key=\"$(printf '%s' \"${MOONCAKE_BRANCH}\")\"\nexport mc_key\ndocker build --build-arg \"K=${mc_key}\" .\n",
			needles:  [][2]string{{ruleArg, "MOONCAKE_BRANCH:+"}, {ruleArg, "MOONCAKE_BRANCH}\""}},
			want:     "mc_jobs=\"${MOONCAKE_BRANCH:+8}\"\ntotal=$(( 4 + mc_jobs ))\necho \"$total\"\nmc_key=\"$(printf '%s' \"${MOONCAKE_BRANCH}\")\"\nexport mc_key\ndocker build --build-arg \"K=${mc_key}\" .\n",
			declined: 2,
		},
		{
			name:     "a removed assignment in one function: another function's stays, and a read left in the first refuses",
			src:      "build_mc() {\n    target=\"mooncake-rocm-ci\"\n    docker buildx bake \"${target}\"\n}\nbuild_nixl() {\n    target=\"nixl-rocm-ci\"\n    docker buildx bake \"${target}\"\n}\n",
			needles:  [][2]string{{ruleStage, "mooncake-rocm-ci"}},
			want:     "build_mc() {\n    target=\"mooncake-rocm-ci\"\n    docker buildx bake \"${target}\"\n}\nbuild_nixl() {\n    target=\"nixl-rocm-ci\"\n    docker buildx bake \"${target}\"\n}\n",
			declined: 1,
		},
	})
}

// A variable another bake file still uses without declaring it stays
// (bake loads them together; second review of issue 17).
func TestHCLOtherFiles(t *testing.T) {
	src := "variable \"MC_BRANCH\" {\n  default = \"v1\"\n}\n"
	fs := []finding.Finding{on(t, ruleArg, src, `"MC_BRANCH"`)}
	other := map[string][]byte{"docker/docker-bake-rocm.hcl": []byte("target \"t\" {\n  target = MC_BRANCH != \"\" ? \"a\" : \"b\"\n}\n")}
	if why := resolved(t, "docker/ci-rocm.hcl", src, HCL("docker/ci-rocm.hcl", []byte(src), fs), other); !strings.Contains(why, "docker/docker-bake-rocm.hcl") {
		t.Errorf("refused for %q", why)
	}
	if why := resolved(t, "docker/ci-rocm.hcl", src, HCL("docker/ci-rocm.hcl", []byte(src), fs), map[string][]byte{"x.hcl": []byte("target \"t\" {}\n")}); why != "" {
		t.Errorf("a file that does not use it blocked the fix: %s", why)
	}
}

// resolved is why Resolve refuses a plan of the file at path, with the
// other files as given ("" when it stands).
func resolved(t *testing.T, path, src string, p Plan, others map[string][]byte) string {
	t.Helper()
	if len(p.Edits) == 0 {
		t.Fatalf("no edits planned: %+v", p.Declined)
	}
	fixed, err := Apply([]byte(src), p.Edits)
	if err != nil {
		t.Fatal(err)
	}
	c := &Change{Path: path, Old: []byte(src), New: fixed, Gone: p.Gone}
	var files []string
	for f := range others {
		files = append(files, f)
	}
	err = Resolve(context.Background(), []*Change{c}, files, func(f string) ([]byte, error) {
		if b, ok := others[f]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	})
	if err != nil {
		t.Fatal(err)
	}
	return c.Refused
}

// A name a compose file or bake JSON bake merges still holds stays (third
// review of issue 17).
func TestHCLBakeJSON(t *testing.T) {
	src := "target \"mooncake-rocm-ci\" {\n  target = \"export_mc\"\n}\n"
	fs := []finding.Finding{on(t, ruleStage, src, `"mooncake-rocm-ci" {`)}
	other := map[string][]byte{"docker-bake.override.json": []byte(`{"group":{"default":{"targets":["app","mooncake-rocm-ci"]}}}`)}
	if why := resolved(t, "docker-bake.hcl", src, HCL("docker-bake.hcl", []byte(src), fs), other); why == "" {
		t.Error("removed a target bake JSON still names")
	}
}
