package fix

import (
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// at is a finding of a rule at a line and column, as the built-in pack
// reports it.
func at(rule string, line, col int) finding.Finding {
	return finding.Finding{Name: rule, Path: "Dockerfile", Pos: finding.Pos{Line: line, Column: col, EndLine: line, EndColumn: col + 1}}
}

func fixDockerfile(t *testing.T, src string, fs []finding.Finding) (string, Plan) {
	t.Helper()
	p := Dockerfile("Dockerfile", []byte(src), fs, Options{})
	out, err := Apply([]byte(src), p.Edits)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), p
}

func TestDockerfileRemovals(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		fs       []finding.Finding
		want     string
		declined int
	}{
		{
			name: "a chain of stages, their ARGs, the RUN that installs the wheel, blank lines",
			src:  "ARG BASE=x\nARG MC_REF=v1\n\nFROM ${BASE} AS base\nRUN true\n\n# Mooncake from source\nFROM base AS mc_src\nARG MC_REF\nRUN git clone -b ${MC_REF} mc\n\nFROM mc_src AS mc_build\nRUN make\n\nFROM base AS final\nRUN --mount=type=bind,from=mc_build,src=/w,target=/mc \\\n    pip install /mc/*.whl\nRUN echo done\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStage, 8, 14), at(ruleArg, 9, 5), at(ruleStep, 10, 5), at(ruleStage, 12, 16), at(ruleStage, 16, 5), at(ruleStep, 17, 5)},
			want: "ARG BASE=x\n\nFROM ${BASE} AS base\nRUN true\n\nFROM base AS final\nRUN echo done\n",
		},
		{
			// Issue 30: vLLM's one RUN installs the NIXL, DeepEP and
			// Mooncake wheels from three mounts; the Mooncake mount and
			// its word go, the rest stays.
			name: "the wheel among others in one install command",
			src:  "FROM a AS v\nRUN make\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=v,target=/iv \\\n    --mount=type=bind,from=mc,target=/im \\\n    uv pip install --system /iv/*.whl /im/*.whl\n",
			fs:   []finding.Finding{at(ruleStage, 3, 11), at(ruleStage, 7, 5), at(ruleStep, 8, 39)},
			want: "FROM a AS v\nRUN make\nFROM a\nRUN --mount=type=bind,from=v,target=/iv \\\n    uv pip install --system /iv/*.whl\n",
		},
		{
			// Review of issue 30 (nixl's Dockerfile.rocm): an ARG that
			// only chose a stage of the source build goes with it.
			name: "an ARG whose default is a removed stage, expanded only by removed FROMs",
			src:  "ARG MC_IMAGE=mooncake-build\nARG KEEP=1\nFROM ubuntu AS mooncake-build\nRUN make\n\nFROM ${MC_IMAGE} AS mooncake-src\n\nFROM ubuntu AS final\nRUN echo ${KEEP}\n",
			fs:   []finding.Finding{at(ruleStage, 3, 16), at(ruleStage, 6, 23)},
			want: "ARG KEEP=1\n\nFROM ubuntu AS final\nRUN echo ${KEEP}\n",
		},
		{
			name: "a package besides the mounted wheel",
			src:  "FROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=mc,target=/im pip install numpy /im/x.whl\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 5)},
			want: "FROM a\nRUN pip install numpy\n",
		},
		{
			name: "COPY --from a removed stage; the comment paragraph of the stage goes, a shared one stays",
			src:  "FROM a AS base\n# builds x\n# from source\nFROM base AS x_build\nRUN make\n\n# the image\nFROM base\nCOPY --from=x_build /w /w\nRUN echo\n",
			fs:   []finding.Finding{at(ruleStage, 4, 14), at(ruleStage, 9, 6)},
			want: "FROM a AS base\n\n# the image\nFROM base\nRUN echo\n",
		},
		{
			name:     "a stage outside the source build builds FROM a removed one: nothing changes",
			src:      "FROM a AS x_src\nRUN git clone x\n\nFROM x_src AS app\nRUN echo\n",
			fs:       []finding.Finding{at(ruleStage, 1, 11)},
			want:     "FROM a AS x_src\nRUN git clone x\n\nFROM x_src AS app\nRUN echo\n",
			declined: 1,
		},
		{
			name:     "an ARG with a name outside the source build stays, as does the RUN doing more than the install",
			src:      "ARG MC_REF=v1 OTHER=2\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=mc,target=/mc pip install /mc/x.whl && make app\n",
			fs:       []finding.Finding{at(ruleArg, 1, 5), at(ruleStage, 2, 11), at(ruleStage, 5, 5)},
			want:     "ARG MC_REF=v1 OTHER=2\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=mc,target=/mc pip install /mc/x.whl && make app\n",
			declined: 3,
		},
		{
			name:     "a removed ARG still expanded elsewhere: nothing changes",
			src:      "ARG MC_REF=v1\nFROM a\nRUN echo ${MC_REF}\n",
			fs:       []finding.Finding{at(ruleArg, 1, 5)},
			want:     "ARG MC_REF=v1\nFROM a\nRUN echo ${MC_REF}\n",
			declined: 1,
		},
		{
			name: "CR LF line endings and a directive stay; an ENV switch goes",
			src:  "# syntax=docker/dockerfile:1\r\nFROM a\r\nENV BUILD_MC=1\r\nRUN echo\r\n",
			fs:   []finding.Finding{at(ruleArg, 3, 5)},
			want: "# syntax=docker/dockerfile:1\r\nFROM a\r\nRUN echo\r\n",
		},
		{
			name: "one key of a multi-key ARG, and a --mount of a removed stage the commands do not use",
			src:  "ARG A=1 MC_REF=v1 B=2\nARG C=3 MC_GO=1.23\nFROM a AS mc\nRUN make\n\nFROM a\nRUN --mount=type=bind,from=mc,target=/mc \\\n    --mount=type=cache,target=/root/.cache \\\n    make app\n",
			fs:   []finding.Finding{at(ruleArg, 1, 9), at(ruleArg, 2, 9), at(ruleStage, 3, 11), at(ruleStage, 7, 5)},
			want: "ARG A=1 B=2\nARG C=3\n\nFROM a\nRUN --mount=type=cache,target=/root/.cache \\\n    make app\n",
		},
		{
			name: "a byte order mark stays when the first line goes",
			src:  "\ufeffARG MC_REF=v1\nFROM a\n",
			fs:   []finding.Finding{at(ruleArg, 1, 5)},
			want: "\ufeffFROM a\n",
		},
		{
			name:     "a step in a kept stage has no whole unit to remove",
			src:      "FROM a\nRUN git clone https://github.com/kvcache-ai/Mooncake && make\n",
			fs:       []finding.Finding{at(ruleStep, 2, 5)},
			want:     "FROM a\nRUN git clone https://github.com/kvcache-ai/Mooncake && make\n",
			declined: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, p := fixDockerfile(t, c.src, c.fs)
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if len(p.Declined) != c.declined || len(p.Fixed)+len(p.Declined) != len(c.fs) {
				t.Errorf("%d fixed, %d declined %v; want %d declined", len(p.Fixed), len(p.Declined), p.Declined, c.declined)
			}
			// The result parses as buildkit reads it, and fixing it again
			// (with the findings of what is left) changes nothing.
			if d, ok := loader.Parse(loader.KindDockerfile, "Dockerfile", []byte(got)).(*loader.DockerfileDocument); !ok || len(d.Errors) > 0 {
				t.Errorf("the fixed file does not parse: %v", d.Errors)
			}
			var left []finding.Finding
			for _, d := range p.Declined {
				left = append(left, d.Finding)
			}
			if len(p.Fixed) > 0 {
				left = nil
			}
			if again, _ := fixDockerfile(t, got, left); again != got {
				t.Errorf("a second fix changed\n%s\ninto\n%s", got, again)
			}
			for _, d := range p.Declined {
				if strings.TrimSpace(d.Reason) == "" {
					t.Errorf("declined without a reason: %+v", d.Finding)
				}
			}
		})
	}
}

// The red-team cases of issue 17's review.
func TestDockerfileReview(t *testing.T) {
	run := func(t *testing.T, src string, fs []finding.Finding) (string, Plan) { return fixDockerfile(t, src, fs) }
	cases := []struct {
		name, src string
		fs        []finding.Finding
	}{
		{"a stage removed before a --from by number", "FROM a AS base\n\nFROM base AS mc_src\nRUN git clone x\n\nFROM a AS tools\nRUN echo\n\nFROM base\nCOPY --from=2 /t /t\n", []finding.Finding{at(ruleStage, 3, 14)}},
		{"a RUN that installs the wheel and uses its mount another way", "FROM a AS v\nRUN make\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=v,target=/iv \\\n    --mount=type=bind,from=mc,target=/im \\\n    uv pip install --system /iv/*.whl /im/*.whl && ls /im\n", []finding.Finding{at(ruleStage, 3, 11), at(ruleStage, 7, 5)}},
		{"a RUN whose removed mount is also an option's value (-c)", "FROM a AS v\nRUN make\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=v,target=/iv --mount=type=bind,from=mc,target=/im uv pip install --system /iv/*.whl /im/*.whl -c /im/constraints.txt\n", []finding.Finding{at(ruleStage, 3, 11)}},
		{"a RUN whose removed mount is --find-links' value", "FROM a AS v\nRUN make\nFROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=v,target=/iv --mount=type=bind,from=mc,target=/im pip install --find-links /im /iv/*.whl /im/*.whl\n", []finding.Finding{at(ruleStage, 3, 11)}},
		{"an ARG whose default is a removed stage, expanded by a kept instruction", "ARG MC_IMAGE=mooncake-build\nFROM ubuntu AS mooncake-build\nRUN make\n\nFROM ubuntu AS final\nRUN echo ${MC_IMAGE}\n", []finding.Finding{at(ruleStage, 2, 16)}},
		{"a RUN whose install command would be left with nothing", "FROM a AS mc\nRUN make\nFROM a\nRUN --mount=type=bind,from=mc,target=/im pip install /im/x.whl && echo hi\n", []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 5)}},
		{"an ENV that only mentions the ARG", "ARG MOONCAKE_BRANCH=v1\nFROM a\nARG MOONCAKE_BRANCH\nENV TAG=\"mc${MOONCAKE_BRANCH}\"\nRUN echo \"$TAG\"\n", []finding.Finding{at(ruleArg, 4, 13)}},
		{"a stage's bare ARG would lose the global default", "ARG MOONCAKE_BRANCH=v1\nFROM a\nARG MOONCAKE_BRANCH WORKDIR_X\nRUN echo \"${MOONCAKE_BRANCH}\"\n", []finding.Finding{at(ruleArg, 1, 5)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, p := run(t, c.src, c.fs)
			if got != c.src || len(p.Fixed) != 0 {
				t.Errorf("changed (%d fixed):\n%s", len(p.Fixed), got)
			}
		})
	}
}

// RUNs gated on a switch of the source build go with it (sglang's
// rocm.Dockerfile: ENV BUILD_MOONCAKE="1"; ROCm/ATOM's: ARG
// INSTALL_MOONCAKE=1, an else that only prints, a gated step that names
// no Mooncake word).
func TestDockerfileSwitches(t *testing.T) {
	src := "FROM a AS gfx942\nENV BUILD_MC=\"1\"\nENV OTHER=\"1\"\n\nFROM gfx942\nARG INSTALL_MC=1\n" +
		"RUN if [ \"$BUILD_MC\" = \"1\" ]; then \\\n    git clone mc && make; \\\n  fi\n" +
		"RUN if [ \"${INSTALL_MC}\" = \"1\" ]; then \\\n    git clone mc; \\\n  else \\\n    echo skipped; \\\n  fi\n" +
		"RUN if [[ -n \"${INSTALL_MC}\" ]]; then curl -o /x https://ionic; fi\n" +
		"RUN echo done\n"
	fs := []finding.Finding{at(ruleArg, 2, 5), at(ruleArg, 6, 5), at(ruleStep, 8, 5), at(ruleStep, 11, 5)}
	// Safe (issue 30): the switch that gates the step naming no part of
	// the source build stays, so that step still runs; its finding is
	// declined as an unsafe fix.
	got, p := fixDockerfile(t, src, fs)
	want := "FROM a AS gfx942\nENV OTHER=\"1\"\n\nFROM gfx942\nARG INSTALL_MC=1\nRUN if [[ -n \"${INSTALL_MC}\" ]]; then curl -o /x https://ionic; fi\nRUN echo done\n"
	if got != want || len(p.Declined) != 1 || !p.Declined[0].Unsafe || !strings.Contains(p.Declined[0].Reason, "line 15") {
		t.Errorf("got\n%s\nwant\n%s\ndeclined %+v", got, want, p.Declined)
	}
	// With --unsafe-fixes, both go.
	up := Dockerfile("Dockerfile", []byte(src), fs, Options{Unsafe: true})
	out, _ := Apply([]byte(src), up.Edits)
	want = "FROM a AS gfx942\nENV OTHER=\"1\"\n\nFROM gfx942\nRUN echo done\n"
	if string(out) != want || len(up.Declined) != 0 {
		t.Errorf("unsafe: got\n%s\nwant\n%s\ndeclined %+v", out, want, up.Declined)
	}
	// An else that does work, or a condition true without the switch,
	// keeps the RUN, and then the switch cannot go either.
	for _, run := range []string{
		"RUN if [ \"$BUILD_MC\" = \"1\" ]; then make mc; else make other; fi\n",
		"RUN if [ \"$BUILD_MC\" != \"1\" ]; then make other; fi\n",
		// Second review: true when unset, an else that runs a command, a
		// mount that sets the switch.
		"RUN if [ -n $BUILD_MC ]; then touch /always; fi\n",
		"RUN if [[ $BUILD_MC == * ]]; then touch /always; fi\n",
		"RUN if [ \"$BUILD_MC\" = 1 ]; then make mc; else echo \"$(pip install x)\"; fi\n",
		"RUN --mount=type=secret,id=f,env=BUILD_MC if [ -n \"$BUILD_MC\" ]; then touch /f; fi\n",
	} {
		src := "FROM a\nENV BUILD_MC=\"1\"\n" + run
		if got, _ := fixDockerfile(t, src, []finding.Finding{at(ruleArg, 2, 5)}); got != src {
			t.Errorf("changed:\n%s", got)
		}
	}
}

// A switch some other definition keeps on (another stage's ENV with
// another value or of several keys, one suppressed, that is one without
// a finding) makes no RUN dormant; a heredoc still reading a removed ARG
// refuses the file (second review of issue 17).
func TestDockerfileSwitchesKept(t *testing.T) {
	for _, other := range []string{"ENV BUILD_MC=\"enabled\"", "ENV FOO=bar BUILD_MC=1", "ENV BUILD_MC=\"1\""} {
		src := "FROM a AS one\nENV BUILD_MC=\"1\"\nRUN if [ \"$BUILD_MC\" = \"1\" ]; then git clone mc; fi\n\nFROM a AS two\n" + other + "\nRUN if [ -n \"$BUILD_MC\" ]; then touch /feature; fi\n"
		got, _ := fixDockerfile(t, src, []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 3, 5)})
		if !strings.Contains(got, "touch /feature") {
			t.Errorf("%s: the RUN the kept switch drives was removed:\n%s", other, got)
		}
	}
	src := "# syntax=docker/dockerfile:1\nFROM a\nARG INSTALL_MC=1\nRUN <<EOT\nif [ \"$INSTALL_MC\" = \"1\" ]; then apt-get install -y x; fi\nEOT\n"
	if got, _ := fixDockerfile(t, src, []finding.Finding{at(ruleArg, 3, 5)}); got != src {
		t.Errorf("changed:\n%s", got)
	}
	src = "FROM a\nSHELL [\"pwsh\", \"-c\"]\nENV BUILD_MC=\"1\"\nRUN if [ \"$BUILD_MC\" = \"1\" ]; then make; fi\n"
	if got, _ := fixDockerfile(t, src, []finding.Finding{at(ruleArg, 3, 5)}); got != src {
		t.Errorf("under pwsh, changed:\n%s", got)
	}
}

// Third review of issue 17: what a removed COPY put in place used later,
// a mount reached through a relative path.
func TestDockerfileThirdReview(t *testing.T) {
	for _, c := range []struct {
		src string
		fs  []finding.Finding
	}{
		{"FROM a AS base\nFROM base AS mc_src\nRUN git clone mc /w\nFROM base AS final\nCOPY --link --from=mc_src /w /wheels\nRUN pip install /wheels/*.whl\n", []finding.Finding{at(ruleStage, 2, 14), at(ruleStage, 5, 8)}},
		{"FROM a AS mc_src\nRUN make\nFROM a\nWORKDIR /install\nRUN --mount=type=bind,from=mc_src,src=/w,target=/install/wheels \\\n    pip install wheels/*.whl\n", []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 5, 5)}},
	} {
		if got, p := fixDockerfile(t, c.src, c.fs); got != c.src {
			t.Errorf("changed (%d fixed):\n%s", len(p.Fixed), got)
		}
	}
}

// Review of issue 30: the PATH entry of a toolchain stays while a kept
// step runs it by name or unpacks it itself.
func TestDockerfileToolPath(t *testing.T) {
	gated := "RUN if [ \"$BUILD_MC\" = \"1\" ]; then \\\n      /usr/local/go/bin/go version && git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc && make -C /opt/mc; \\\n    fi\n"
	for _, c := range []struct {
		name, src string
		kept      bool
	}{
		{"only the removed step uses it", "FROM a\nENV BUILD_MC=1\nENV PATH=/usr/local/go/bin:${PATH}\n" + gated + "RUN echo done\n", false},
		{"a kept step runs go", "FROM a\nENV BUILD_MC=1\nENV PATH=/usr/local/go/bin:${PATH}\n" + gated + "RUN go build ./cmd/app\n", true},
		{"a kept step runs gofmt", "FROM a\nENV BUILD_MC=1\nENV PATH=/usr/local/go/bin:${PATH}\n" + gated + "RUN gofmt -l /src\n", true},
		{"an exec-form CMD runs go", "FROM a\nENV BUILD_MC=1\nENV PATH=/usr/local/go/bin:${PATH}\n" + gated + "CMD [\"go\", \"version\"]\n", true},
		{"a kept step unpacks it there", "FROM a\nENV BUILD_MC=1\nRUN curl -fsSL https://go.dev/dl/go.tgz | tar -C /usr/local -xz && ls /usr/local/go\nENV PATH=/usr/local/go/bin:${PATH}\n" + gated + "RUN echo done\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := fixDockerfile(t, c.src, []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 5, 39)})
			if kept := strings.Contains(got, "ENV PATH"); kept != c.kept {
				t.Errorf("ENV PATH kept %v, want %v:\n%s", kept, c.kept, got)
			}
		})
	}
}

// An ARG only removed instructions read goes with them (ROCm/ATOM's
// IONIC_DEB_URL with --unsafe-fixes); one a kept instruction reads stays.
func TestDockerfileOrphanArgs(t *testing.T) {
	gated := "RUN if [ \"${INSTALL_MC}\" = \"1\" ]; then curl -o /x \"${URL}\"; fi\n"
	for _, c := range []struct {
		name, src string
		kept      bool
	}{
		{"read only by the removed step", "FROM a\nARG INSTALL_MC=1\n\n# The provider's package.\nARG URL=https://x/ionic.deb\n" + gated + "\nRUN echo done\n", false},
		{"read by a kept step too", "FROM a\nARG INSTALL_MC=1\nARG URL=https://x/ionic.deb\n" + gated + "RUN echo \"${URL}\"\n", true},
		{"a global ARG a kept FROM expands", "ARG URL=a\nFROM ${URL}\nARG INSTALL_MC=1\n" + gated + "RUN echo done\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := []finding.Finding{at(ruleArg, strings.Count(c.src[:strings.Index(c.src, "ARG INSTALL_MC")], "\n")+1, 5)}
			p := Dockerfile("Dockerfile", []byte(c.src), fs, Options{Unsafe: true})
			out, _ := Apply([]byte(c.src), p.Edits)
			if kept := strings.Contains(string(out), "ARG URL"); kept != c.kept {
				t.Errorf("ARG URL kept %v, want %v:\n%s", kept, c.kept, out)
			}
			if !c.kept && strings.Contains(string(out), "provider's package") {
				t.Errorf("its comment stayed:\n%s", out)
			}
		})
	}
}
