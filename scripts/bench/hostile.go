//go:build bench

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// Budgets of the hostile mode (issue: any single file of at most 10 MB).
const (
	hostileRSSMB   = 500
	hostileSeconds = 10
)

// hostileCase is one file a pull request could write: its path in the
// repository and a generator filling it up to about size bytes. A case
// of issue 26 may write more files (more) and give the run arguments
// (args): a policy, --data. Past a bound the run ends with exit 2 and
// says which: that is within budget when it is said in time.
type hostileCase struct {
	name, rel string
	gen       func(size int) string
	more      func() map[string]string
	args      []string
}

// fill repeats unit to about size bytes, between head and tail.
func fill(head, unit, tail string, size int) string {
	n := max(1, (size-len(head)-len(tail))/len(unit))
	return head + strings.Repeat(unit, n) + tail
}

func nested(open, mid, close string, size int) string {
	n := max(1, (size-len(mid))/(len(open)+len(close)))
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

var hostileCases = []hostileCase{
	{name: "requirements: one-letter lines", rel: "requirements/big.txt", gen: func(s int) string { return fill("", "a\n", "", s) }},
	{name: "requirements: one line of specifier clauses", rel: "requirements/spec.txt", gen: func(s int) string { return fill("pkg>=1", ",>=1", "\n", s) }},
	{name: "requirements: --hash options", rel: "requirements/hash.txt", gen: func(s int) string {
		return fill("pkg==1", " --hash=sha256:"+strings.Repeat("a", 64), "\n", s)
	}},
	{name: "requirements: continuation lines", rel: "requirements/cont.txt", gen: func(s int) string { return fill("pkg", " \\\n", ">=1\n", s) }},
	{name: "requirements: one 10 MB word", rel: "requirements/word.txt", gen: func(s int) string { return fill("", "a", "\n", s) }},
	{name: "shell: $( nested", rel: "ci/a.sh", gen: func(s int) string { return "echo " + nested("$(", "", ")", s) + "\n" }},
	{name: "shell: ${a:- nested", rel: "ci/b.sh", gen: func(s int) string { return "echo " + nested("${a:-", "", "}", s) + "\n" }},
	{name: "shell: subshells nested, one per line", rel: "ci/c.sh", gen: func(s int) string { return nested("(\n", "true\n", ")\n", s) }},
	{name: "shell: quoted closers around $(", rel: "ci/d.sh", gen: func(s int) string { return "echo \"" + fill("", "$( echo \")\" ", "\"\n", s) }},
	{name: "shell: a pipeline", rel: "ci/e.sh", gen: func(s int) string { return fill("cat", " | cat", "\n", s) }},
	{name: "shell: an && list", rel: "ci/f.sh", gen: func(s int) string { return fill("true", " && true", "\n", s) }},
	{name: "shell: plain commands (over the 4 MB bound)", rel: "ci/g.sh", gen: func(s int) string { return fill("", "echo a b c | grep x && (cd y; ls)\n", "", s) }},
	{name: "shell: plain commands, 4 MB", rel: "ci/h.sh", gen: func(s int) string { return fill("", "echo a b c | grep x && (cd y; ls)\n", "", min(s, 4<<20-64)) }},
	{name: "shell: heredocs", rel: "ci/i.sh", gen: func(s int) string { return fill("", "cat <<E\n$(x)\nE\n", "", s) }},
	{name: "shell: pip install arguments, 4 MB", rel: "ci/k.sh", gen: func(s int) string {
		return fill("pip install", " 'mooncake-transfer-engine-rocm[a]>=0.3.13; os_name==\"nt\"'", "\n", min(s, 4<<20-64))
	}},
	{name: "shell: pip -r and --override arguments, 4 MB", rel: "ci/l.sh", gen: func(s int) string {
		return fill("uv pip install", " -r r.txt --override=o.txt", "\n", min(s, 4<<20-64))
	}},
	{name: "Dockerfile: PIP_ and UV_ settings and pip RUNs, 2 MB", rel: "docker/Dockerfile.pip", gen: func(s int) string {
		return fill("FROM a AS b\n", "ENV PIP_INDEX_URL=https://x UV_OVERRIDE=/o\nRUN pip install -r /r.txt mooncake-transfer-engine-rocm==0.3.0\n", "", min(s, 2<<20-64))
	}},
	{name: "shell: one 10 MB word", rel: "ci/j.sh", gen: func(s int) string { return fill("echo ", "a", "\n", s) }},
	{name: "HCL: brackets (over the 512 KB bound)", rel: "docker/a.hcl", gen: func(s int) string { return "a = " + nested("[", "", "]", s) + "\n" }},
	{name: "HCL: brackets, 512 KB", rel: "docker/b.hcl", gen: func(s int) string { return "a = " + nested("[", "", "]", 512<<10-16) + "\n" }},
	{name: "HCL: a binary chain, 512 KB", rel: "docker/c.hcl", gen: func(s int) string { return fill("a = 1", " + 1", "\n", 512<<10-16) }},
	{name: "HCL: attributes, 512 KB", rel: "docker/d.hcl", gen: func(s int) string { return fill("", "x = \"${a}-b\"\n", "", 512<<10-16) }},
	{name: "HCL: targets, 512 KB", rel: "docker/e.hcl", gen: func(s int) string {
		return fill("", "target \"t\" {\n  args = { A = \"1\" }\n  tags = [\"a\", \"b\"]\n}\n", "", 512<<10-16)
	}},
	{name: "Dockerfile: RUN lines (over the 2 MB bound)", rel: "a/Dockerfile", gen: func(s int) string { return fill("FROM a\n", "RUN echo a | grep b\n", "", s) }},
	{name: "Dockerfile: RUN lines, 2 MB", rel: "b/Dockerfile", gen: func(s int) string { return fill("FROM a\n", "RUN echo a | grep b\n", "", 2<<20-16) }},
	{name: "Dockerfile: 19,000 long RUN lines, 2 MB", rel: "g/Dockerfile", gen: func(s int) string {
		return fill("FROM a\n", "RUN "+strings.Repeat("x ", (2<<20/19000-6)/2)+"\n", "", 2<<20-16)
	}},
	{name: "Dockerfile: a heredoc nested, 2 MB", rel: "h/Dockerfile", gen: func(s int) string {
		return "FROM a\nRUN <<E\n" + nested("(\n", "true\n", ")\n", 2<<20-32) + "E\n"
	}},
	{name: "Dockerfile: a heredoc of plain commands, 2 MB", rel: "i/Dockerfile", gen: func(s int) string {
		return "FROM a\nRUN <<E\n" + fill("", "echo a b c | grep x && (cd y; ls)\n", "", 2<<20-32) + "E\n"
	}},
	{name: "Dockerfile: one RUN of continuation lines", rel: "c/Dockerfile", gen: func(s int) string { return fill("FROM a\nRUN echo", " a \\\n", " b\n", s) }},
	{name: "Dockerfile: heredocs", rel: "d/Dockerfile", gen: func(s int) string { return fill("FROM a\n", "RUN <<E\necho $(x)\nE\n", "", s) }},
	{name: "Dockerfile: a heredoc nested", rel: "e/Dockerfile", gen: func(s int) string { return "FROM a\nRUN <<E\n" + nested("(\n", "true\n", ")\n", s) + "E\n" }},
	{name: "Dockerfile: ARGs", rel: "f/Dockerfile", gen: func(s int) string { return fill("", "ARG A=1 B=2 C=3\n", "FROM a\n", s) }},
	// Every stage a finding: the rules' work per stage (this took 32 s
	// for 2,000 stages before workdirs and known_pattern were indexed).
	{name: "Dockerfile: 4,000 source-build stages, each a finding", rel: "j/Dockerfile.rocm", gen: func(s int) string {
		var b strings.Builder
		b.WriteString("FROM a AS base\n")
		for i := 0; i < 4000; i++ {
			fmt.Fprintf(&b, "FROM base AS mooncake_source%d\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m%d\n", i, i)
		}
		return b.String()
	}},
	{name: "HCL: ! over lines in parentheses, 480 KB", rel: "docker/f.hcl", gen: func(s int) string { return "x = (" + strings.Repeat("!\n", 240000) + "true)\n" }},
	{name: "HCL: a splat chain, 510 KB", rel: "docker/g.hcl", gen: func(s int) string { return "x = [1]" + strings.Repeat("[*]", 170000) + "\n" }},
	{name: "HCL: a huge number literal", rel: "docker/h.hcl", gen: func(s int) string { return "x = 1e10000000\n" }},
	{name: "shell: expansions, 4 MB", rel: "ci/m.sh", gen: func(s int) string { return fill("echo ", "$a", "\n", 4<<20-64) }},
	{name: "shell: 60 heredoc errors, then 4 MB", rel: "ci/n.sh", gen: func(s int) string {
		var b strings.Builder
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "cat <<E%d\n", i)
		}
		return fill(b.String(), "$a\n", "", 4<<20-64)
	}},
	{name: "requirements: one line of -r options", rel: "requirements/opts.txt", gen: func(s int) string { return fill("", " -r x.txt", "\n", s) }},
	{name: "requirements: empty clauses and a long marker", rel: "requirements/clauses.txt", gen: func(s int) string {
		return "a>=1" + strings.Repeat(",", 99000) + ";" + strings.Repeat("x", min(s, 1<<20)) + "\n"
	}},
	{name: "requirements: extras", rel: "requirements/extras.txt", gen: func(s int) string { return fill("a[", "b,", "b]\n", s) }},
	// Shell inside shell (issue 13), in files that mention the package so
	// that the source-build rules look at everything.
	{name: "shell: sh -c scripts of 40 syntax errors, 4 MB", rel: "ci/o.sh", gen: func(s int) string {
		return fill("mooncake=1\n", "sh -c '"+strings.Repeat("fi\n", 40)+"'\n", "", min(s, 4<<20-64))
	}},
	{name: "shell: bash -c nested 8 deep, 4 MB", rel: "ci/p.sh", gen: func(s int) string {
		return fill("mooncake=1\n", `bash -c 'sh -c "bash -c \"sh -c \\\"bash -c x; cd mooncake\\\"\""'`+"\n", "", min(s, 4<<20-64))
	}},
	{name: "shell: one argument of 1M words naming the package, 4 MB", rel: "ci/q.sh", gen: func(s int) string {
		return "build_stages 'mooncake_source " + strings.Repeat("a ", min(s, 4<<20-64)/2-32) + "'\n"
	}},
	// A file that mentions the package is read in full by the rules: the
	// element cap is what bounds it.
	{name: "shell: plain commands naming the package, 4 MB", rel: "ci/r.sh", gen: func(s int) string {
		return fill("mooncake=1\n", "echo a b c | grep x && (cd y; ls)\n", "", min(s, 4<<20-64))
	}},
	{name: "shell: a value of 2M words naming the package, 4 MB", rel: "ci/s.sh", gen: func(s int) string {
		return "mooncake=1\nX=\"" + strings.Repeat("a ", min(s, 4<<20-64)/2-32) + "\"\n"
	}},
	// Asked per element of a file: once per file (review of issue 13: 140 s).
	{name: "shell: 35,000 local-wheel installs naming the package", rel: "ci/t.sh", gen: func(s int) string {
		var b strings.Builder
		for i := 0; i < 35000; i++ {
			fmt.Fprintf(&b, "pip install mooncake-wheel/dist/x%d.whl\n", i)
		}
		return b.String()
	}},
	// CI pipelines (issue 19), naming the package so that the rules
	// read them in full.
	{name: "pipeline: a flow sequence of 1 MB", rel: ".buildkite/a.yml", gen: func(s int) string {
		return fill("# mooncake\nx: [", "a,", "a]\n", 1<<20-64)
	}},
	{name: "pipeline: over the 1 MB bound", rel: ".buildkite/b.yml", gen: func(s int) string { return fill("x: [", "a,", "a]\n", s) }},
	{name: "pipeline: commands naming the package, 1 MB", rel: ".buildkite/c.yml", gen: func(s int) string {
		return fill("steps:\n  - commands:\n", "      - docker build --build-arg MOONCAKE_BRANCH=main -t mooncake .\n", "", 1<<20-64)
	}},
	{name: "pipeline: commands naming the package, at the 50,000-element bound", rel: ".buildkite/f.yml", gen: func(s int) string {
		return "steps:\n  - commands:\n" + strings.Repeat("      - docker build --build-arg MOONCAKE_BRANCH=main -t mooncake .\n", 7000)
	}},
	{name: "pipeline: one literal block of commands, 1 MB", rel: ".github/workflows/d.yml", gen: func(s int) string {
		return fill("jobs:\n  j:\n    steps:\n      - run: |\n", "          echo mooncake a b | grep x && (cd y; ls)\n", "", 1<<20-64)
	}},
	{name: "pipeline: aliases of aliases (a billion laughs)", rel: ".gitlab-ci.yml", gen: func(s int) string {
		var b strings.Builder
		b.WriteString("a: &a [\"echo mooncake\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n")
		prev := "a"
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&b, "l%d: &l%d [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
			prev = fmt.Sprintf("l%d", i)
		}
		b.WriteString("job:\n  script: *" + prev + "\n")
		return b.String()
	}},
	// One large anchor used many times, and many GitLab !reference
	// (review of issue 19: minutes and gigabytes before the text bound).
	{name: "pipeline: a 400 KB anchor in 1,300 scripts", rel: ".buildkite/g.yml", gen: func(s int) string {
		return "# mooncake\nx-a: &v |\n  echo " + strings.Repeat("y", 400000) + "\nsteps:\n" + strings.Repeat("  - command: [*v]\n", 1300)
	}},
	{name: "pipeline: an anchor of 20,000 build args in 200 actions", rel: ".github/workflows/h.yml", gen: func(s int) string {
		return "# mooncake\nx-a: &v |\n" + strings.Repeat("    A=1\n", 20000) + "jobs:\n  j:\n    steps:\n" +
			strings.Repeat("      - {uses: docker/build-push-action@v6, with: {build-args: *v}}\n", 200)
	}},
	{name: "pipeline: 24,000 GitLab !reference, 1 MB", rel: ".gitlab-ci.yml", gen: func(s int) string {
		var b strings.Builder
		b.WriteString("# mooncake\n.t: {script: [make]}\n")
		for i := 0; b.Len() < 1<<20-64; i++ {
			fmt.Fprintf(&b, "j%d: {script: !reference [.t, script]}\n", i)
		}
		return b.String()
	}},
	// The build model (issue 28): recipes, Python steps, inline
	// Dockerfiles, clones in every stage.
	{name: "Makefile: 3 MB of recipe lines that cd into a clone", rel: "Makefile", gen: func(s int) string {
		return fill("all:\n", "\tcd /opt/mooncake && $(MAKE) x$$y\n", "", min(s, 4<<20-64))
	}},
	{name: "justfile: 20,000 recipes", rel: "justfile", gen: func(s int) string {
		return fill("", "r:\n    cd /opt/mooncake && make {{x}}\n", "", min(s, 1<<20))
	}},
	{name: "Python step: 4 MB of subprocess calls", rel: "tools/build.py", gen: func(s int) string {
		return fill("import subprocess\n", "subprocess.run(['git', 'clone', 'https://github.com/kvcache-ai/Mooncake.git', 'd'])\n", "", min(s, 4<<20-64))
	}, more: func() map[string]string {
		return map[string]string{"docker/Dockerfile.rocm": "FROM rocm/x\nCOPY tools/build.py /b.py\nRUN python3 /b.py\n"}
	}},
	{name: "compose: 2,000 inline Dockerfiles", rel: "compose.yaml", gen: func(s int) string {
		return fill("services:\n", "  s:\n    build:\n      dockerfile_inline: |\n        FROM x\n        RUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make\n", "", min(s, 1<<20-64))
	}},
	{name: "Dockerfile: 2,000 stages, each cloning and building", rel: "docker/Dockerfile.rocm", gen: func(s int) string {
		var b strings.Builder
		b.WriteString("FROM rocm/x AS s0\n")
		for i := 1; i < 2000; i++ {
			fmt.Fprintf(&b, "FROM s%d AS s%d\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m%d && cd /m%d && make\n", i-1, i, i, i)
		}
		return b.String()
	}},
	{name: "pipeline: nested flow mappings, 1 MB", rel: ".buildkite/e.yml", gen: func(s int) string { return "x: " + nested("{a: ", "1", "}", 1<<20-64) + "\n" }},
	{name: "text: lone CRs", rel: "ci/k.sh", gen: func(s int) string { return fill("", "echo a\r", "", s) }},
	{name: "text: invalid UTF-8 everywhere", rel: "ci/l.sh", gen: func(s int) string { return fill("", "echo \xff\xfe\n", "", s) }},
	// Issue 26: what a pull request writes besides build files.
	{name: "pipeline: a one-line flow mapping, 100 KB", rel: ".github/workflows/f.yml", gen: func(s int) string {
		var b strings.Builder
		for i := 0; b.Len() < 100<<10; i++ {
			fmt.Fprintf(&b, "K%d: v, ", i)
		}
		return "on: push\njobs:\n  b:\n    runs-on: x\n    env: {" + b.String() + "Z: v}\n    steps:\n      - run: echo mooncake\n"
	}},
	{name: "pipeline: 150 GitLab include globs over 20,000 files", rel: ".gitlab-ci.yml", gen: func(s int) string {
		var b strings.Builder
		b.WriteString("include:\n")
		for i := 0; i < 150; i++ {
			fmt.Fprintf(&b, "  - local: \"**/g%d*.yml\"\n", i)
		}
		return b.String()
	}, more: func() map[string]string {
		m := map[string]string{}
		for i := 0; i < 20000; i++ {
			m[fmt.Sprintf("data/d%d/f%d.txt", i%200, i)] = ""
		}
		return m
	}, args: []string{"--timeout", "5s"}},
	// The second red team of issue 26: scripts handed to a shell by eval
	// and pipes (the nested-script budget bounds them), the shell's
	// error-recovery bound, references with variables, and reports of
	// findings sharing one large fix.
	{name: "shell: eval and piped scripts naming the package, 4 MB", rel: "ci/u.sh", gen: func(s int) string {
		return fill("mooncake=1\n", "eval 'cd mooncake && make' ; echo 'git clone x' | sh\n", "", min(s, 4<<20-64))
	}},
	{name: "shell: 40,000 references through variables", rel: "ci/v.sh", gen: func(s int) string {
		var b strings.Builder
		for i := 0; i < 40000; i++ {
			fmt.Fprintf(&b, "S%d=ci/$A/$B%d; bash \"$S%d\"\n", i%50, i, i%50)
		}
		return b.String()
	}},
	{name: "shell: past the shell's 50 syntax errors, 4 MB", rel: "ci/w.sh", gen: func(s int) string {
		return fill("", "x=$((echo a); (echo b))\n", "", min(s, 4<<20-64))
	}},
	{name: "report: 12,000 findings sharing a 60 KB fix", rel: "policy/p.rego", gen: func(int) string {
		return "package buildgate.rules.big\n\nbig := concat(\"\", [\"x\" | some i in numbers.range(1, 60000)])\n\n" +
			"deny contains {\"msg\": sprintf(\"m%d\", [i]), \"path\": \"requirements/rocm.txt\", \"pos\": {\"line\": 1, \"column\": 1}, " +
			"\"fix\": {\"replacement\": big, \"pos\": {\"line\": 1, \"column\": 1, \"end_line\": 1, \"end_column\": 1}}} if {\n\tsome i in numbers.range(1, 12000)\n}\n"
	}, args: []string{"--policy", "policy"}},
	{name: "--data: 60 MB of JSON", rel: "d.json", gen: func(s int) string { return fill(`{"a": [`, "0,", `0]}`, 60<<20) },
		more: dataPolicy, args: []string{"--policy", "policy", "--data", "d.json"}},
	{name: "--data: 16 MB of strings (within its bounds)", rel: "d.json", gen: func(s int) string { return fill(`{"a": [`, `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, `""]}`, 16<<20-64) },
		more: dataPolicy, args: []string{"--policy", "policy", "--data", "d.json"}},
	{name: "--data: 490,000 values (within its bounds)", rel: "d.json", gen: func(s int) string { return fill(`{"a": [`, `1,`, `1]}`, 980000) },
		more: dataPolicy, args: []string{"--policy", "policy", "--data", "d.json"}},
	bombCase("concat of large strings", `r := concat(s0, [s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0])`),
	bombCase("sprintf of many %s", `r := sprintf(concat("", ["%s" | some i in numbers.range(1, 40)]), [s0 | some i in numbers.range(1, 40)])`),
	bombCase("sprintf with a %*d width", `r := sprintf("%*d", [2000000000, count(s0)])`),
	bombCase("json.marshal", `r := json.marshal([s0 | some i in numbers.range(1, 40)])`),
	bombCase("indexof_n", `r := indexof_n(s0, "")`),
	bombCase(`split(x, "")`, `r := split(s0, "")`),
	bombCase("regex.find_n", `r := regex.find_n(".", s0, -1)`),
	bombCase("regex.split", `r := regex.split("", s0)`),
	bombCase("json.unmarshal of 30 MB", `t0 := concat(",", [x | some i in numbers.range(1, 1000000); x := "0"]); t := concat(",", [t0, t0, t0, t0, t0, t0, t0, t0, t0, t0, t0, t0, t0, t0, t0]); count(s0) > 0; r := json.unmarshal(concat("", ["[", t, "]"]))`),
	bombCase("a comprehension of 900,000 substrings of 2 MB (time: --timeout)", `r := [x | some i in numbers.range(1, 900000); x := substring(s0, 0, 1)]`, "--timeout", "8s"),
	bombCase("products of 1e300", `a := (count(s0) + 1e300) * 1e300; b := a * a; c := b * b; e := c * c; f := e * e; g := f * f; h2 := g * g; i := h2 * h2; j := i * i; k := j * j; l := k * k; r := format_int(l * l, 10)`),
}

// dataPolicy is a rule that reads --data.
func dataPolicy() map[string]string {
	return map[string]string{"policy/p.rego": "package buildgate.rules.d\n\ndeny contains \"x\" if {\n\tsome v in data.buildgate.data.a\n\tv == -1\n}\n"}
}

// bombCase is a policy of the pull request's whose rule calls a builtin
// that would build a result far larger than its operands (s0 is 2 MB).
func bombCase(name, body string, args ...string) hostileCase {
	return hostileCase{name: "policy: " + name, rel: "policy/p.rego", gen: func(int) string {
		return "package buildgate.rules.bomb\n\ndeny contains \"x\" if {\n\tsome d in input.documents\n" +
			"\th := concat(\"\", [x | some i in numbers.range(1, 500000); x := substring(d.path, 0, 1)])\n\ts0 := concat(\"\", [h, h, h, h])\n\t" +
			body + "\n\tr == r\n}\n"
	}, args: append([]string{"--policy", "policy"}, args...)}
}

// hostile runs lint on a repository holding one hostile file at a time
// and prints time and peak memory against the budgets, with Go's soft
// memory limit (as buildgate runs) and without it (GOMEMLIMIT=off), whose
// wall time must not be more than 1.5 times shorter (issue 26); it
// returns false when one is over. A case that stops at a bound (exit 2)
// is within budget when it stops in time and within memory.
func hostile(work, bin string, size int, only string) bool {
	fmt.Printf("hostile inputs: one file of up to %.1f MB each, budgets %d s and %d MB (peak RSS of the whole run); wall without the soft memory limit beside it\n\n", float64(size)/1e6, hostileSeconds, hostileRSSMB)
	fmt.Println("| input | MB | wall | peak RSS | wall, no soft limit | peak RSS, no soft limit | outcome | within budget |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|---|")
	ok := true
	for i, c := range hostileCases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		root := filepath.Join(work, fmt.Sprintf("hostile-%02d", i))
		p := filepath.Join(root, filepath.FromSlash(c.rel))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		body := c.gen(size)
		if len(body) > size && c.more == nil {
			body = body[:size]
		}
		check(os.WriteFile(p, []byte(body), 0o644))
		size := len(body)
		body = ""
		if c.more != nil {
			for rel, text := range c.more() {
				q := filepath.Join(root, filepath.FromSlash(rel))
				check(os.MkdirAll(filepath.Dir(q), 0o755))
				check(os.WriteFile(q, []byte(text), 0o644))
			}
		}
		check(os.MkdirAll(filepath.Join(root, "requirements"), 0o755))
		check(os.WriteFile(filepath.Join(root, "requirements", "rocm.txt"), []byte("mooncake-transfer-engine-rocm >= 0.3.13\n"), 0o644))
		args := append([]string{"lint", "--root", root, "--format", "json", "--output", filepath.Join(work, "out.json"), "--fail-on", "never"}, c.args...)
		w, m, code, said := once(nil, bin, root, args...)
		w2, m2, _, _ := once([]string{"GOMEMLIMIT=off"}, bin, root, args...)
		within := w.Seconds() <= hostileSeconds && m <= hostileRSSMB && w.Seconds() <= 1.5*w2.Seconds()+0.2 && code <= 2
		ok = ok && within
		mark := "yes"
		if !within {
			mark = "**no**"
		}
		outcome := fmt.Sprintf("exit %d", code)
		if code == 2 {
			outcome += ": " + said
		}
		fmt.Printf("| %s | %.1f | %.2f s | %.0f MB | %.2f s | %.0f MB | %s | %s |\n", c.name, float64(size)/1e6, w.Seconds(), m, w2.Seconds(), m2, outcome, mark)
		check(os.RemoveAll(root))
	}
	return ok
}

// once runs the binary once in dir with env added: wall time, peak RSS,
// exit status and the first line of what it said on stderr (shortened).
func once(env []string, bin, dir string, args ...string) (time.Duration, float64, int, string) {
	// The child's peak RSS starts as the bench's own (the fork shares its
	// memory until exec): give back what the generated files took.
	debug.FreeOSMemory()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s %v: %v\n", bin, args, err)
		os.Exit(1)
	}
	var rss float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024
	}
	said, _, _ := strings.Cut(errb.String(), "\n")
	if r := []rune(said); len(r) > 90 {
		said = string(r[:90]) + "…"
	}
	return d, rss, code, strings.ReplaceAll(said, "|", "\\|")
}
