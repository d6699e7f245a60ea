package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Budgets of the hostile mode (issue: any single file of at most 10 MB).
const (
	hostileRSSMB   = 500
	hostileSeconds = 10
)

// hostileCase is one file a pull request could write: its path in the
// repository and a generator filling it up to about size bytes.
type hostileCase struct {
	name, rel string
	gen       func(size int) string
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
	{"requirements: one-letter lines", "requirements/big.txt", func(s int) string { return fill("", "a\n", "", s) }},
	{"requirements: one line of specifier clauses", "requirements/spec.txt", func(s int) string { return fill("pkg>=1", ",>=1", "\n", s) }},
	{"requirements: --hash options", "requirements/hash.txt", func(s int) string {
		return fill("pkg==1", " --hash=sha256:"+strings.Repeat("a", 64), "\n", s)
	}},
	{"requirements: continuation lines", "requirements/cont.txt", func(s int) string { return fill("pkg", " \\\n", ">=1\n", s) }},
	{"requirements: one 10 MB word", "requirements/word.txt", func(s int) string { return fill("", "a", "\n", s) }},
	{"shell: $( nested", "ci/a.sh", func(s int) string { return "echo " + nested("$(", "", ")", s) + "\n" }},
	{"shell: ${a:- nested", "ci/b.sh", func(s int) string { return "echo " + nested("${a:-", "", "}", s) + "\n" }},
	{"shell: subshells nested, one per line", "ci/c.sh", func(s int) string { return nested("(\n", "true\n", ")\n", s) }},
	{"shell: quoted closers around $(", "ci/d.sh", func(s int) string { return "echo \"" + fill("", "$( echo \")\" ", "\"\n", s) }},
	{"shell: a pipeline", "ci/e.sh", func(s int) string { return fill("cat", " | cat", "\n", s) }},
	{"shell: an && list", "ci/f.sh", func(s int) string { return fill("true", " && true", "\n", s) }},
	{"shell: plain commands (over the 4 MB bound)", "ci/g.sh", func(s int) string { return fill("", "echo a b c | grep x && (cd y; ls)\n", "", s) }},
	{"shell: plain commands, 4 MB", "ci/h.sh", func(s int) string { return fill("", "echo a b c | grep x && (cd y; ls)\n", "", min(s, 4<<20-64)) }},
	{"shell: heredocs", "ci/i.sh", func(s int) string { return fill("", "cat <<E\n$(x)\nE\n", "", s) }},
	{"shell: one 10 MB word", "ci/j.sh", func(s int) string { return fill("echo ", "a", "\n", s) }},
	{"HCL: brackets (over the 512 KB bound)", "docker/a.hcl", func(s int) string { return "a = " + nested("[", "", "]", s) + "\n" }},
	{"HCL: brackets, 512 KB", "docker/b.hcl", func(s int) string { return "a = " + nested("[", "", "]", 512<<10-16) + "\n" }},
	{"HCL: a binary chain, 512 KB", "docker/c.hcl", func(s int) string { return fill("a = 1", " + 1", "\n", 512<<10-16) }},
	{"HCL: attributes, 512 KB", "docker/d.hcl", func(s int) string { return fill("", "x = \"${a}-b\"\n", "", 512<<10-16) }},
	{"HCL: targets, 512 KB", "docker/e.hcl", func(s int) string {
		return fill("", "target \"t\" {\n  args = { A = \"1\" }\n  tags = [\"a\", \"b\"]\n}\n", "", 512<<10-16)
	}},
	{"Dockerfile: RUN lines (over the 2 MB bound)", "a/Dockerfile", func(s int) string { return fill("FROM a\n", "RUN echo a | grep b\n", "", s) }},
	{"Dockerfile: RUN lines, 2 MB", "b/Dockerfile", func(s int) string { return fill("FROM a\n", "RUN echo a | grep b\n", "", 2<<20-16) }},
	{"Dockerfile: 19,000 long RUN lines, 2 MB", "g/Dockerfile", func(s int) string {
		return fill("FROM a\n", "RUN "+strings.Repeat("x ", (2<<20/19000-6)/2)+"\n", "", 2<<20-16)
	}},
	{"Dockerfile: a heredoc nested, 2 MB", "h/Dockerfile", func(s int) string {
		return "FROM a\nRUN <<E\n" + nested("(\n", "true\n", ")\n", 2<<20-32) + "E\n"
	}},
	{"Dockerfile: a heredoc of plain commands, 2 MB", "i/Dockerfile", func(s int) string {
		return "FROM a\nRUN <<E\n" + fill("", "echo a b c | grep x && (cd y; ls)\n", "", 2<<20-32) + "E\n"
	}},
	{"Dockerfile: one RUN of continuation lines", "c/Dockerfile", func(s int) string { return fill("FROM a\nRUN echo", " a \\\n", " b\n", s) }},
	{"Dockerfile: heredocs", "d/Dockerfile", func(s int) string { return fill("FROM a\n", "RUN <<E\necho $(x)\nE\n", "", s) }},
	{"Dockerfile: a heredoc nested", "e/Dockerfile", func(s int) string { return "FROM a\nRUN <<E\n" + nested("(\n", "true\n", ")\n", s) + "E\n" }},
	{"Dockerfile: ARGs", "f/Dockerfile", func(s int) string { return fill("", "ARG A=1 B=2 C=3\n", "FROM a\n", s) }},
	// Every stage a finding: the rules' work per stage (this took 32 s
	// for 2,000 stages before workdirs and known_pattern were indexed).
	{"Dockerfile: 4,000 source-build stages, each a finding", "j/Dockerfile.rocm", func(s int) string {
		var b strings.Builder
		b.WriteString("FROM a AS base\n")
		for i := 0; i < 4000; i++ {
			fmt.Fprintf(&b, "FROM base AS mooncake_source%d\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m%d\n", i, i)
		}
		return b.String()
	}},
	{"HCL: ! over lines in parentheses, 480 KB", "docker/f.hcl", func(s int) string { return "x = (" + strings.Repeat("!\n", 240000) + "true)\n" }},
	{"HCL: a splat chain, 510 KB", "docker/g.hcl", func(s int) string { return "x = [1]" + strings.Repeat("[*]", 170000) + "\n" }},
	{"HCL: a huge number literal", "docker/h.hcl", func(s int) string { return "x = 1e10000000\n" }},
	{"shell: expansions, 4 MB", "ci/m.sh", func(s int) string { return fill("echo ", "$a", "\n", 4<<20-64) }},
	{"shell: 60 heredoc errors, then 4 MB", "ci/n.sh", func(s int) string {
		var b strings.Builder
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "cat <<E%d\n", i)
		}
		return fill(b.String(), "$a\n", "", 4<<20-64)
	}},
	{"requirements: one line of -r options", "requirements/opts.txt", func(s int) string { return fill("", " -r x.txt", "\n", s) }},
	{"requirements: empty clauses and a long marker", "requirements/clauses.txt", func(s int) string {
		return "a>=1" + strings.Repeat(",", 99000) + ";" + strings.Repeat("x", min(s, 1<<20)) + "\n"
	}},
	{"requirements: extras", "requirements/extras.txt", func(s int) string { return fill("a[", "b,", "b]\n", s) }},
	// Shell inside shell (issue 13), in files that mention the package so
	// that the source-build rules look at everything.
	{"shell: sh -c scripts of 40 syntax errors, 4 MB", "ci/o.sh", func(s int) string {
		return fill("mooncake=1\n", "sh -c '"+strings.Repeat("fi\n", 40)+"'\n", "", min(s, 4<<20-64))
	}},
	{"shell: bash -c nested 8 deep, 4 MB", "ci/p.sh", func(s int) string {
		return fill("mooncake=1\n", `bash -c 'sh -c "bash -c \"sh -c \\\"bash -c x; cd mooncake\\\"\""'`+"\n", "", min(s, 4<<20-64))
	}},
	{"shell: one argument of 1M words naming the package, 4 MB", "ci/q.sh", func(s int) string {
		return "build_stages 'mooncake_source " + strings.Repeat("a ", min(s, 4<<20-64)/2-32) + "'\n"
	}},
	// A file that mentions the package is read in full by the rules: the
	// element cap is what bounds it.
	{"shell: plain commands naming the package, 4 MB", "ci/r.sh", func(s int) string {
		return fill("mooncake=1\n", "echo a b c | grep x && (cd y; ls)\n", "", min(s, 4<<20-64))
	}},
	{"shell: a value of 2M words naming the package, 4 MB", "ci/s.sh", func(s int) string {
		return "mooncake=1\nX=\"" + strings.Repeat("a ", min(s, 4<<20-64)/2-32) + "\"\n"
	}},
	// Asked per element of a file: once per file (review of issue 13: 140 s).
	{"shell: 35,000 local-wheel installs naming the package", "ci/t.sh", func(s int) string {
		var b strings.Builder
		for i := 0; i < 35000; i++ {
			fmt.Fprintf(&b, "pip install mooncake-wheel/dist/x%d.whl\n", i)
		}
		return b.String()
	}},
	// CI pipelines (issue 19), naming the package so that the rules
	// read them in full.
	{"pipeline: a flow sequence of 1 MB", ".buildkite/a.yml", func(s int) string {
		return fill("# mooncake\nx: [", "a,", "a]\n", 1<<20-64)
	}},
	{"pipeline: over the 1 MB bound", ".buildkite/b.yml", func(s int) string { return fill("x: [", "a,", "a]\n", s) }},
	{"pipeline: commands naming the package, 1 MB", ".buildkite/c.yml", func(s int) string {
		return fill("steps:\n  - commands:\n", "      - docker build --build-arg MOONCAKE_BRANCH=main -t mooncake .\n", "", 1<<20-64)
	}},
	{"pipeline: commands naming the package, at the 50,000-element bound", ".buildkite/f.yml", func(s int) string {
		return "steps:\n  - commands:\n" + strings.Repeat("      - docker build --build-arg MOONCAKE_BRANCH=main -t mooncake .\n", 7000)
	}},
	{"pipeline: one literal block of commands, 1 MB", ".github/workflows/d.yml", func(s int) string {
		return fill("jobs:\n  j:\n    steps:\n      - run: |\n", "          echo mooncake a b | grep x && (cd y; ls)\n", "", 1<<20-64)
	}},
	{"pipeline: aliases of aliases (a billion laughs)", ".gitlab-ci.yml", func(s int) string {
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
	{"pipeline: a 400 KB anchor in 1,300 scripts", ".buildkite/g.yml", func(s int) string {
		return "# mooncake\nx-a: &v |\n  echo " + strings.Repeat("y", 400000) + "\nsteps:\n" + strings.Repeat("  - command: [*v]\n", 1300)
	}},
	{"pipeline: an anchor of 20,000 build args in 200 actions", ".github/workflows/h.yml", func(s int) string {
		return "# mooncake\nx-a: &v |\n" + strings.Repeat("    A=1\n", 20000) + "jobs:\n  j:\n    steps:\n" +
			strings.Repeat("      - {uses: docker/build-push-action@v6, with: {build-args: *v}}\n", 200)
	}},
	{"pipeline: 24,000 GitLab !reference, 1 MB", ".gitlab-ci.yml", func(s int) string {
		var b strings.Builder
		b.WriteString("# mooncake\n.t: {script: [make]}\n")
		for i := 0; b.Len() < 1<<20-64; i++ {
			fmt.Fprintf(&b, "j%d: {script: !reference [.t, script]}\n", i)
		}
		return b.String()
	}},
	{"pipeline: nested flow mappings, 1 MB", ".buildkite/e.yml", func(s int) string { return "x: " + nested("{a: ", "1", "}", 1<<20-64) + "\n" }},
	{"text: lone CRs", "ci/k.sh", func(s int) string { return fill("", "echo a\r", "", s) }},
	{"text: invalid UTF-8 everywhere", "ci/l.sh", func(s int) string { return fill("", "echo \xff\xfe\n", "", s) }},
}

// hostile runs lint on a repository holding one hostile file at a time
// and prints time and peak memory against the budgets; it returns false
// when one is over.
func hostile(work, bin string, size int, only string) bool {
	fmt.Printf("hostile inputs: one file of up to %.1f MB each, budgets %d s and %d MB (peak RSS of the whole run)\n\n", float64(size)/1e6, hostileSeconds, hostileRSSMB)
	fmt.Println("| input | MB | wall | peak RSS | within budget |")
	fmt.Println("|---|---:|---:|---:|---|")
	ok := true
	for i, c := range hostileCases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		root := filepath.Join(work, fmt.Sprintf("hostile-%02d", i))
		p := filepath.Join(root, filepath.FromSlash(c.rel))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		body := c.gen(size)
		if len(body) > size {
			body = body[:size]
		}
		check(os.WriteFile(p, []byte(body), 0o644))
		check(os.MkdirAll(filepath.Join(root, "requirements"), 0o755))
		check(os.WriteFile(filepath.Join(root, "requirements", "rocm.txt"), []byte("mooncake-transfer-engine-rocm >= 0.3.13\n"), 0o644))
		w, m := best(1, bin, "lint", "--root", root, "--format", "json", "--output", filepath.Join(work, "out.json"), "--fail-on", "never")
		within := w.Seconds() <= hostileSeconds && m <= hostileRSSMB
		ok = ok && within
		mark := "yes"
		if !within {
			mark = "**no**"
		}
		fmt.Printf("| %s | %.1f | %.2f s | %.0f MB | %s |\n", c.name, float64(len(body))/1e6, w.Seconds(), m, mark)
		check(os.RemoveAll(root))
	}
	return ok
}
