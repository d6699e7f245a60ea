//go:build bench

// Command bench measures buildgate on generated repositories: wall time,
// files per second and peak memory of `buildgate lint` and of parsing
// alone (discovery and loading, no policies), each in a process of its own.
//
//	go run -tags bench ./scripts/bench                  # 100, 1,000 and 10,000 files
//	go run -tags bench ./scripts/bench -sizes 1000 -vllm # plus 1,300 and 10,010 vLLM docker/ files
//	go run -tags bench ./scripts/bench -repo Mooncake=DIR # plus a checkout
//	go run -tags bench ./scripts/bench -hostile          # one hostile file at a time
//
// Repositories are generated under a temporary directory from the
// project's fixtures (testdata/vllm-rocm, loader/testdata/examples) and,
// when ../shared/corpus is present, from vLLM's real files, in realistic
// sizes: a mix of Dockerfiles, bake files, requirements files and scripts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/lint"
)

func main() {
	sizes := flag.String("sizes", "100,1000,10000", "repository sizes in files, comma-separated")
	vllm := flag.Bool("vllm", true, "also measure copies of ../shared/corpus/vllm/latest/docker (-vllm-copies), when ../shared is there")
	var repos repoFlags
	flag.Var(&repos, "repo", "also measure a checkout, as NAME=DIR (repeatable; e.g. a snapshot of kvcache-ai/Mooncake)")
	vllmCopies := flag.String("vllm-copies", "100,770", "with -vllm: how many copies of vLLM's docker/ (13 files each: 1,300 and 10,010 files)")
	runs := flag.Int("runs", 3, "runs per measurement (the fastest is reported)")
	parseOnly := flag.String("parse-only", "", "internal: discover and load this root, then exit")
	hostileMode := flag.Bool("hostile", false, "measure one hostile file at a time (deep nesting, huge element counts, special text) against the 10 s / 500 MB budgets; exit 1 when one is over")
	hostileSize := flag.Int("hostile-size", 10<<20, "size of each hostile file in bytes")
	hostileOnly := flag.String("hostile-only", "", "with -hostile: only the cases whose name holds this text (e.g. pipeline)")
	flag.Parse()
	if *parseOnly != "" {
		files, err := discover.Find(*parseOnly, []string{*parseOnly}, discover.Options{})
		check(err)
		docs, _, err := lint.Load(*parseOnly, files, nil, 0)
		check(err)
		fmt.Println(len(docs))
		return
	}
	repo := findRepo()
	work, err := os.MkdirTemp("", "buildgate-bench")
	check(err)
	defer func() { _ = os.RemoveAll(work) }()
	bin := filepath.Join(work, "buildgate")
	self := filepath.Join(work, "bench")
	run(repo, "go", "build", "-o", bin, "./cmd/buildgate")
	run(repo, "go", "build", "-tags", "bench", "-o", self, "./scripts/bench")

	if *hostileMode {
		if !hostile(work, bin, *hostileSize, *hostileOnly) {
			_ = os.RemoveAll(work)
			os.Exit(1)
		}
		return
	}
	pool := fixtures(repo)
	conftest, conftestPol := installConftest(work)
	fmt.Printf("buildgate benchmark: %d CPUs (GOMAXPROCS), best of %d runs; conftest %s with the equivalent rule (BG102) on what it can read\n\n", numCPU(), *runs, conftestVersion)
	table := func() {
		fmt.Println("| repository | files | MB | lint wall | lint files/s | lint peak RSS | parse wall | parse peak RSS | lint / parse | conftest wall | conftest peak RSS | buildgate / conftest |")
		fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	}
	var roots []string
	var names []string
	copiesOf := map[int]int{} // root index -> copies of vLLM's docker/
	got := results{mooncake: -1}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		root := filepath.Join(work, "mix-"+s)
		generate(root, pool, n)
		roots, names = append(roots, root), append(names, "fixture mix")
	}
	if *vllm {
		src := filepath.Join(repo, "..", "shared", "corpus", "vllm", "latest", "docker")
		if _, err := os.Stat(src); err == nil {
			for _, c := range strings.Split(*vllmCopies, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(c))
				check(err)
				root := filepath.Join(work, "vllm-x"+c)
				for i := 0; i < n; i++ {
					copyDir(src, filepath.Join(root, fmt.Sprintf("c%03d", i), "docker"))
				}
				copiesOf[len(roots)] = n
				roots, names = append(roots, root), append(names, fmt.Sprintf("vLLM docker/ x%d", n))
			}
		} else {
			fmt.Fprintln(os.Stderr, "bench: ../shared/corpus is absent; skipping the vLLM repository")
		}
	}
	for _, r := range repos {
		name, dir, ok := strings.Cut(r, "=")
		if !ok || !exists(dir) {
			fmt.Fprintf(os.Stderr, "bench: -repo %q: want NAME=DIR of an existing directory\n", r)
			os.Exit(2)
		}
		if strings.EqualFold(name, "mooncake") {
			got.mooncake = len(roots)
		}
		roots, names = append(roots, dir), append(names, name)
	}
	if after := filepath.Join(repo, "..", "shared", "corpus", "vllm", "after"); exists(after) {
		// The small run: the four migrated files, 30 runs; conftest on the
		// two it can read (the Dockerfile and the bake file).
		min30 := func(name string, args ...string) (time.Duration, time.Duration, float64) {
			var walls []time.Duration
			var rss float64
			for i := 0; i < 30; i++ {
				w, m := best(1, name, args...)
				walls = append(walls, w)
				rss = max(rss, m)
			}
			sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
			return walls[0], walls[15], rss
		}
		lo, med, rss := min30(bin, "lint", "--root", after, "--format", "json", "--output", filepath.Join(work, "out.json"))
		fmt.Printf("the four vLLM files after the migration: %.3f s min, %.3f s median of 30 runs, %.0f MB peak", lo.Seconds(), med.Seconds(), rss)
		got.four = lo
		if conftest != "" {
			clo, cmed, crss := min30(conftest, "test", "--no-color", "-p", conftestPol,
				filepath.Join(after, "docker", "Dockerfile.rocm"), filepath.Join(after, "docker", "ci-rocm.hcl"))
			fmt.Printf("; conftest on the two it can read: %.3f s min, %.3f s median, %.0f MB (buildgate / conftest %.2f)", clo.Seconds(), cmed.Seconds(), crss, lo.Seconds()/clo.Seconds())
			got.fourConftest = clo
		}
		fmt.Print("\n\n")
	}
	table()
	for i, root := range roots {
		files, bytes := count(root)
		lw, lm := best(*runs, bin, "lint", "--root", root, "--format", "json", "--output", filepath.Join(work, "out.json"), "--fail-on", "never")
		pw, pm := best(*runs, self, "-parse-only", root)
		cf := "- | - | -"
		r := row{name: names[i], copies: copiesOf[i], files: files, lint: lw, lintRSS: lm, parse: pw}
		if conftest != "" {
			cw, cm := best(*runs, conftest, "test", "--no-color", "-p", conftestPol, root)
			cf = fmt.Sprintf("%.3f s | %.0f MB | %.2f", cw.Seconds(), cm, lw.Seconds()/cw.Seconds())
			r.conftest = cw
			if conftestFails(conftest, conftestPol, root) {
				// It stopped at a file it cannot parse (Mooncake's
				// .devcontainer JSON with comments): its time is no
				// comparison.
				cf = "failed | - | -"
				r.conftest = 0
			}
		}
		got.rows = append(got.rows, r)
		fmt.Printf("| %s | %d | %.1f | %.3f s | %.0f | %.0f MB | %.3f s | %.0f MB | %.2f | %s |\n",
			names[i], files, float64(bytes)/1e6, lw.Seconds(), float64(files)/lw.Seconds(), lm, pw.Seconds(), pm, lw.Seconds()/pw.Seconds(), cf)
	}
	fmt.Println()
	got.print(os.Stdout)
}

// conftestFails reports whether conftest stops with an error on root
// (not a failed policy: a file it cannot parse).
func conftestFails(conftest, pol, root string) bool {
	cmd := exec.Command(conftest, "test", "--no-color", "-p", pol, root)
	out, _ := cmd.CombinedOutput()
	return strings.Contains(string(out), "Error: ")
}

type repoFlags []string

func (r *repoFlags) String() string     { return strings.Join(*r, ",") }
func (r *repoFlags) Set(v string) error { *r = append(*r, v); return nil }

// best runs a command n times and returns its fastest wall time and the
// largest peak resident memory (MB) it reached.
func best(n int, name string, args ...string) (time.Duration, float64) {
	var wall time.Duration
	var rss float64
	for i := 0; i < n; i++ {
		cmd := exec.Command(name, args...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() > 1 {
				fmt.Fprintf(os.Stderr, "bench: %s %v: %v\n", name, args, err)
				os.Exit(1)
			}
		}
		d := time.Since(start)
		if wall == 0 || d < wall {
			wall = d
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			if m := float64(ru.Maxrss) / 1024; m > rss {
				rss = m
			}
		}
	}
	return wall, rss
}

type fixture struct {
	rel  string
	data []byte
}

// fixtures are the files repositories are made of.
func fixtures(repo string) []fixture {
	var pool []fixture
	add := func(dir string) {
		check(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			if strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".golden") {
				return nil
			}
			b, err := os.ReadFile(p)
			check(err)
			pool = append(pool, fixture{filepath.ToSlash(rel), b})
			return nil
		}))
	}
	add(filepath.Join(repo, "testdata", "vllm-rocm", "before"))
	add(filepath.Join(repo, "testdata", "vllm-rocm", "after"))
	add(filepath.Join(repo, "loader", "testdata", "examples"))
	if latest := filepath.Join(repo, "..", "shared", "corpus", "vllm", "latest"); exists(latest) {
		add(latest)
	}
	sort.Slice(pool, func(i, j int) bool { return pool[i].rel < pool[j].rel })
	return pool
}

// generate writes n files cycling through the pool, each under a
// directory of its own, plus a pinned requirements/rocm.txt.
func generate(root string, pool []fixture, n int) {
	for i := 0; i < n-1; i++ {
		f := pool[i%len(pool)]
		p := filepath.Join(root, fmt.Sprintf("d%05d", i), filepath.FromSlash(f.rel))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, f.data, 0o644))
	}
	p := filepath.Join(root, "requirements", "rocm.txt")
	check(os.MkdirAll(filepath.Dir(p), 0o755))
	check(os.WriteFile(p, []byte("mooncake-transfer-engine-rocm >= 0.3.13\n"), 0o644))
}

func copyDir(src, dst string) {
	check(filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		check(err)
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(t, 0o755)
		}
		b, err := os.ReadFile(p)
		check(err)
		return os.WriteFile(t, b, 0o644)
	}))
}

func count(root string) (files int, bytes int64) {
	check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files++
			if st, err := d.Info(); err == nil {
				bytes += st.Size()
			}
		}
		return nil
	}))
	return files, bytes
}

func findRepo() string {
	wd, err := os.Getwd()
	check(err)
	for d := wd; ; d = filepath.Dir(d) {
		if exists(filepath.Join(d, "go.mod")) && exists(filepath.Join(d, "cmd", "buildgate")) {
			return d
		}
		if filepath.Dir(d) == d {
			fmt.Fprintln(os.Stderr, "bench: run it from the buildgate checkout")
			os.Exit(2)
		}
	}
}

func run(dir, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	check(cmd.Run())
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func numCPU() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
