package fix

import (
	"fmt"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestPipelineRemovals(t *testing.T) {
	cases := []struct {
		name, src string
		fs        []finding.Finding
		want      string // "" when every finding is declined
		declined  string
	}{
		{
			name: "env entries and options alone on continued lines",
			src:  "env:\n  KEEP: 1\n  MOONCAKE_WHEEL: \"https://x\"\nsteps:\n  - commands:\n      - |\n        docker build \\\n          --build-arg A=1 \\\n          --build-arg MOONCAKE_WHEEL=\"${MOONCAKE_WHEEL}\" \\\n          -f Dockerfile .\n",
			fs:   []finding.Finding{at(ruleArg, 3, 3), at(ruleArg, 9, 23), at(ruleArg, 9, 47)},
			want: "env:\n  KEEP: 1\nsteps:\n  - commands:\n      - |\n        docker build \\\n          --build-arg A=1 \\\n          -f Dockerfile .\n",
		},
		{
			name: "an option inside a one-line command",
			src:  "steps:\n  - command: \"docker build --build-arg=MOONCAKE_REPO=x --build-arg B=\\\"2\\\" .\"\n",
			fs:   []finding.Finding{at(ruleArg, 2, 41)},
			want: "steps:\n  - command: \"docker build --build-arg B=\\\"2\\\" .\"\n",
		},
		{
			name: "a --set of a bake",
			src:  "steps:\n  - command: docker buildx bake --set '*.args.MOONCAKE_COMMIT=abc' t\n",
			fs:   []finding.Finding{at(ruleArg, 2, 41)},
			want: "steps:\n  - command: docker buildx bake t\n",
		},
		{
			name: "an entry whose value is a block scalar, a comment after it",
			src:  "env:\n  KEEP: 1\n  MOONCAKE_REPO: |\n    x\n  # about Z\n  Z: 2\nsteps:\n  - command: make\n",
			fs:   []finding.Finding{at(ruleArg, 3, 3)},
			want: "env:\n  KEEP: 1\n  # about Z\n  Z: 2\nsteps:\n  - command: make\n",
		},
		{
			name:     "a docker run whose container command builds",
			src:      "steps:\n  - command: docker run --rm img make build --build-arg MOONCAKE_REPO=x\n",
			fs:       []finding.Finding{at(ruleArg, 2, 64)},
			declined: "not an environment entry or a --build-arg option",
		},
		{
			name:     "the last entry of its env",
			src:      "steps:\n  - env:\n      MOONCAKE_REPO: x\n    command: make\n",
			fs:       []finding.Finding{at(ruleArg, 3, 7)},
			declined: "the last entry of its mapping",
		},
		{
			name:     "an argument of another command",
			src:      "steps:\n  - command: echo MOONCAKE_REPO=x\n",
			fs:       []finding.Finding{at(ruleArg, 2, 19)},
			declined: "not an environment entry or a --build-arg option",
		},
		{
			name:     "a source-build step",
			src:      "steps:\n  - command: git clone https://github.com/kvcache-ai/Mooncake\n",
			fs:       []finding.Finding{at(ruleStep, 2, 14)},
			declined: "environment entries and --build-arg options only",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Pipeline(".buildkite/p.yml", []byte(c.src), c.fs)
			if c.want == "" {
				if len(p.Edits) > 0 || len(p.Declined) != len(c.fs) || !strings.Contains(p.Declined[0].Reason, c.declined) {
					t.Fatalf("want every finding declined (%q), got %+v", c.declined, p)
				}
				return
			}
			if len(p.Declined) > 0 {
				t.Fatalf("declined: %+v", p.Declined)
			}
			got, err := Apply([]byte(c.src), p.Edits)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			// Idempotent: the fixed text has nothing more to remove.
			if again := Pipeline(".buildkite/p.yml", got, nil); len(again.Edits) > 0 {
				t.Errorf("a second run edits again: %+v", again.Edits)
			}
		})
	}
}

// Review of issue 19: the plan's names are in file order (the refusal a
// cross-file check gives names the first), and a file of many entries
// plans in linear time (it was cubic: 2 minutes for 1,000 steps).
func TestPipelinePlanOrderAndScale(t *testing.T) {
	var src strings.Builder
	src.WriteString("steps:\n")
	var fs []finding.Finding
	for i := range 1000 {
		fmt.Fprintf(&src, "  - env:\n      KEEP: 1\n      MOONCAKE_WHEEL_%d: x\n    command: make\n", i)
		fs = append(fs, at(ruleArg, 2+4*i+2, 7))
	}
	p := Pipeline(".buildkite/p.yml", []byte(src.String()), fs)
	if len(p.Declined) > 0 || len(p.Gone) != 1000 {
		t.Fatalf("%d declined, %d gone", len(p.Declined), len(p.Gone))
	}
	for i, g := range p.Gone {
		if g.Name != fmt.Sprintf("MOONCAKE_WHEEL_%d", i) {
			t.Fatalf("gone[%d] = %s: not in file order", i, g.Name)
		}
	}
}

// Issue 30, item 2: an environment entry goes only with every line that
// reads it. A kept step reading it (a shell expansion, a CI expression)
// keeps the entry; a --build-arg option that goes with it does not.
func TestPipelineEnvGoesWithItsReaders(t *testing.T) {
	head := "env:\n  KEEP: 1\n  MOONCAKE_COMMIT: abc\nsteps:\n"
	for _, c := range []struct {
		name, steps string
		fs          []finding.Finding
		kept        bool
	}{
		{"a set -u step reads it", "  - command: |\n      set -u\n      echo \"${MOONCAKE_COMMIT}\" > version.txt\n", nil, true},
		{"a bare $NAME read", "  - command: tar czf out-$MOONCAKE_COMMIT.tgz dist\n", nil, true},
		{"a CI expression reads it", "  - uses: actions/upload-artifact@v4\n    with:\n      name: wheel-${{ env.MOONCAKE_COMMIT }}\n", nil, true},
		{"only the --build-arg that goes reads it", "  - command: docker build --build-arg MOONCAKE_COMMIT=$MOONCAKE_COMMIT --build-arg A=1 .\n", []finding.Finding{at(ruleArg, 5, 40)}, false},
		{"a longer name is another variable", "  - command: echo \"$MOONCAKE_COMMIT_X ${MOONCAKE_COMMITTED}\"\n", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.steps
			fs := append([]finding.Finding{at(ruleArg, 3, 3)}, c.fs...)
			p := Pipeline(".github/workflows/b.yml", []byte(src), fs)
			got, _ := Apply([]byte(src), p.Edits)
			if kept := strings.Contains(string(got), "MOONCAKE_COMMIT: abc"); kept != c.kept {
				t.Errorf("entry kept %v, want %v\n%s\n%+v", kept, c.kept, got, p.Declined)
			}
			if c.kept && (len(p.Declined) == 0 || !strings.Contains(p.Declined[0].Reason, "still reads MOONCAKE_COMMIT")) {
				t.Errorf("reason: %+v", p.Declined)
			}
		})
	}
}
