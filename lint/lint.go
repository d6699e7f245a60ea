// Package lint runs the pipeline: discover the build files, load them,
// evaluate the policies, apply the configuration's rule settings.
package lint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/buildgate/buildgate/changes"
	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint/process"
	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

// Options describe one run.
type Options struct {
	Root   string
	Paths  []string
	Config *config.Config
	// SkipUnknown passes over the named files that are no build file
	// (discover.Options.SkipUnknown).
	SkipUnknown bool
	// Policies are the compiled policies; PoliciesReady, when set
	// instead, waits for policies being compiled while the files are
	// found (compiling takes as long as finding a small repository's).
	Policies      *Policies
	PoliciesReady func() (*Policies, error)
	MaxFileSize   int64
	// Timeout bounds the whole run, loading and evaluation (0: none).
	Timeout time.Duration
	// Suppress says how buildgate:ignore comments and config ignores apply.
	Suppress SuppressOptions
	// Changed, when set, keeps only findings on added or changed lines
	// (and repository-level ones).
	Changed *changes.Set
	// Baseline, when set, drops the findings it holds.
	Baseline *Baseline
	// Progress, when set, hears how far the run is: the stage ("loading",
	// "evaluating") and, while loading, files done of the total. It is
	// called from several goroutines.
	Progress func(stage string, done, total int)
	// Fix, when set, plans buildgate fix's edits into Outcome.Fixes.
	Fix *FixOptions
}

// Outcome is what a run found.
type Outcome struct {
	// Paths are the files checked, in order.
	Paths    []string
	Findings []finding.Finding
	// Suppressed are the findings suppressions cover, each with its
	// Suppression set.
	Suppressed []finding.Finding
	// All are the findings before the baseline and changed-lines filters
	// (what --write-baseline records).
	All []finding.Finding
	// Baselined and NotNew count the findings those filters left out.
	Baselined, NotNew int
	// Unreadable are the files that could not be opened at all (each is
	// also a BG001 finding).
	Unreadable []Unreadable
	// Fixes are the planned edits, file by file, when Options.Fix was
	// set; FixError says why they could not be planned.
	Fixes    []*FixFile
	FixError error
	// UnsafeFixes counts the findings whose fix only buildgate fix
	// --unsafe-fixes applies (a run without Fix).
	UnsafeFixes int
}

// Unreadable is a file that could not be opened, and why.
type Unreadable struct {
	Path   string
	Reason string
}

// Run lints. Errors are about the run itself (a path that does not
// exist, a policy that fails); problems with files are findings.
//
// The run is one pipeline (issue 27): discover, load (each file read,
// parsed when the pack's needles say it matters, converted, and its facts
// taken), fold the facts into the repository's table, model (an empty
// step until the build model fills it), evaluate each file alone on every
// core, evaluate the repository, evaluate the user policies once over
// every document, then process the findings step by step.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	// --timeout bounds the whole run: a pull request must not be able to
	// hold the gate open by making loading slow either.
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	timedOut := func(what string, err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("%s did not finish within --timeout %s", what, o.Timeout)
		}
		return err
	}
	dopts := discoverOptions(o.Config, o.SkipUnknown)
	dopts.Context = ctx
	found, err := discover.Find(o.Root, o.Paths, dopts)
	if err != nil {
		return nil, timedOut("finding the build files", err)
	}
	if o.PoliciesReady != nil {
		if o.Policies, err = o.PoliciesReady(); err != nil {
			return nil, err
		}
	}
	eng := o.Policies.eng
	settings, err := process.ResolveSettings(o.Config, eng.Rules())
	if err != nil {
		return nil, err
	}
	cfg, err := engine.ToValue(o.Config.PolicyInput())
	if err != nil {
		return nil, err
	}
	p := &phase1{eng: eng, cfg: cfg, parseAll: eng.HasUserPolicies()}
	needles, declared, err := eng.Needles(ctx, cfg, nil)
	if err != nil {
		return nil, timedOut("the needles", err)
	}
	p.needles, p.parseAll = needles, p.parseAll || !declared
	if p.empty, err = eng.Fold(ctx, cfg, nil); err != nil {
		return nil, timedOut("the repository's table", err)
	}
	var tick func()
	if o.Progress != nil {
		var done atomic.Int64
		total := len(found)
		tick = func() { o.Progress("loading", int(done.Add(1)), total) }
	}
	files, err := p.loadAll(ctx, o.Root, found, o.Config.RequiredFiles(), o.MaxFileSize, tick)
	if err != nil {
		return nil, timedOut("loading the files", err)
	}
	if files, err = followRefs(ctx, o, p, dopts, found, files); err != nil {
		return nil, timedOut("loading the files", err)
	}
	extra, err := loadContext(ctx, o, p, files)
	if err != nil {
		return nil, timedOut("loading the files", err)
	}
	files = append(files, extra...)
	repo, err := foldFacts(ctx, eng, cfg, files)
	if err != nil {
		return nil, timedOut("the repository's table", err)
	}
	table := engine.NewTable(repo)
	more, _, err := eng.Needles(ctx, cfg, table)
	if err != nil {
		return nil, timedOut("the needles", err)
	}
	files = model(files)
	if o.Progress != nil {
		o.Progress("evaluating", len(files), len(files))
	}
	findings, docs, err := evaluate(ctx, o, eng, cfg, repo, files, newNeedles(needles, more))
	if err != nil {
		return nil, evalError(err, o.Timeout)
	}
	repoFindings, err := eng.EvalRepository(ctx, cfg, engine.NewTable(repo), findings)
	if err != nil {
		return nil, evalError(err, o.Timeout)
	}
	findings = append(findings, repoFindings...)
	if p.parseAll {
		user, err := eng.EvalUser(ctx, cfg, repo, docs)
		if err != nil {
			return nil, evalError(err, o.Timeout)
		}
		for i := range user {
			if user[i].Failed {
				user[i] = placeFailure(o.Root, user[i])
			}
		}
		findings = append(findings, user...)
	}
	finding.Sort(findings)
	return o.process(ctx, eng.Rules(), files, settings, findings), nil
}

// followRefs loads the files the loaded ones have their CI system read or
// run (discover.Refs), and those these name in turn, each as the kind its
// reference gives. An error a reference brings (a bound passed, a program
// whose output is uploaded) is added to the file it belongs to; a file
// loaded already is then evaluated again.
func followRefs(ctx context.Context, o Options, p *phase1, dopts discover.Options, found []discover.File, files []*file) ([]*file, error) {
	refs, err := discover.NewRefs(ctx, o.Root, found, dopts)
	if err != nil {
		return files, nil // the root cannot be opened: loading said so
	}
	defer func() { _ = refs.Close() }()
	byPath := map[string]*file{}
	for _, f := range files {
		byPath[f.path] = f
	}
	queue := files
	for len(queue) > 0 {
		var more []discover.File
		notes := map[string][]loader.Error{}
		for _, f := range queue {
			markReferenced(o.Changed, f.path, f.refs)
			add, ns := refs.Follow(f.path, f.refs)
			more = append(more, add...)
			for k, v := range ns {
				notes[k] = append(notes[k], v...)
			}
		}
		for i, m := range more {
			more[i].Errors = append(more[i].Errors, notes[m.Path]...)
			delete(notes, m.Path)
		}
		for path, ns := range notes {
			if f := byPath[path]; f != nil {
				f.notes, f.again = append(f.notes, ns...), true
				if !f.bare && f.kind != loader.KindRequirements {
					f.doc = engine.Doc{Path: f.path}
				}
			}
		}
		loaded, err := p.loadAll(ctx, o.Root, more, nil, o.MaxFileSize, nil)
		if err != nil {
			return nil, err
		}
		for _, f := range loaded {
			byPath[f.path] = f
		}
		files = append(files, loaded...)
		queue = loaded
	}
	return files, nil
}

// markReferenced counts as changed whole, for --new-from-rev, each file a
// changed line of from names: a script the change newly runs is new to
// the build even when its own text is not.
func markReferenced(changed *changes.Set, from string, refs []loader.FileRef) {
	if changed == nil {
		return
	}
	for _, r := range refs {
		if r.Path != "" && !r.Glob && changed.Touches(from, r.Pos.Line, r.Pos.EndLine) {
			changed.MarkWhole(r.Path)
		}
	}
}

// evalError names what ran out of time, or what failed.
func evalError(err error, timeout time.Duration) error {
	var te *engine.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("%s did not finish within --timeout %s", te.Query, timeout)
	}
	return fmt.Errorf("evaluating policies: %w", err)
}

// newNeedles are the needles of the repository's table that the first
// phase did not look for.
func newNeedles(before, after []string) []string {
	had := map[string]bool{}
	for _, n := range before {
		had[n] = true
	}
	var out []string
	for _, n := range after {
		if !had[n] {
			out = append(out, n)
		}
	}
	return out
}

// foldFacts folds every file's facts into the repository's table.
func foldFacts(ctx context.Context, eng *engine.Engine, cfg ast.Value, files []*file) (ast.Value, error) {
	facts := make([]engine.FileFact, len(files))
	for i, f := range files {
		facts[i] = engine.FileFact{Path: f.path, Kind: string(f.kind), Facts: f.facts, Runs: runsOf(f)}
	}
	return eng.Fold(ctx, cfg, facts)
}

// maxRuns bounds the files one file is said to run in the table.
const maxRuns = 256

// runsOf are the files a file runs, by its references (the build model
// across files: what a ROCm Dockerfile runs is ROCm's).
func runsOf(f *file) []string {
	var out []string
	for _, r := range f.refs {
		if r.Via == "runs" && !r.Glob && r.Note == "" && len(out) < maxRuns {
			out = append(out, path.Clean(r.Path))
		}
	}
	return append(out, f.named...)
}

// model is the step between loading and evaluating: the build model of
// each file is the loader's (each command's program, directory, fetch and
// values: loader/model.go), what crosses files is the pack's table (the
// values a file gives another's build arguments, what runs what); it
// passes the files on unchanged.
func model(files []*file) []*file { return files }

// evaluate gives each file's findings from the pack: those of its first
// evaluation when every read it made of the table answers the same from
// the repository's whole table, else those of an evaluation again, now
// with the whole table (on GOMAXPROCS workers). A file left bare whose
// text holds one of the needles the whole table adds is read and
// evaluated again too. Findings come in file order; when user policies
// are loaded, every file's document is returned for their evaluation.
func evaluate(ctx context.Context, o Options, eng *engine.Engine, cfg, repo ast.Value, files []*file, extra []string) ([]finding.Finding, []engine.Doc, error) {
	whole := engine.NewTable(repo)
	var again []int
	for i, f := range files {
		if f.again || !whole.Holds(f.reads) || f.bare && len(extra) > 0 {
			again = append(again, i)
		}
	}
	errs := make([]error, len(files))
	var mu sync.Mutex
	var batchErrs []error
	err := eachParallel(ctx, len(again), func() (func(int), func(), error) {
		l, err := loader.NewLoader(o.Root)
		if err != nil {
			return nil, nil, err
		}
		if o.MaxFileSize > 0 {
			l.MaxFileSize = o.MaxFileSize
		}
		b := &evalBatch{eng: eng, cfg: cfg, repo: repo}
		return func(k int) {
				f := files[again[k]]
				d, err := f.document(l, extra)
				if err != nil {
					errs[again[k]] = err
					return
				}
				if (f.bare || f.refsOnly) && !f.again && d.Value == f.doc.Value && whole.Holds(f.reads) {
					return // still bare: its first evaluation holds
				}
				if eng.HasUserPolicies() {
					f.doc = d
				}
				errs[again[k]] = b.add(ctx, f, d)
			}, func() {
				_ = l.Close()
				if err := b.flush(ctx); err != nil {
					mu.Lock()
					batchErrs = append(batchErrs, err)
					mu.Unlock()
				}
			}, nil
	})
	if err == nil {
		err = errors.Join(append(errs, batchErrs...)...)
	}
	if err != nil {
		return nil, nil, err
	}
	var out []finding.Finding
	var docs []engine.Doc
	for _, f := range files {
		out = append(out, f.findings...)
		if eng.HasUserPolicies() {
			docs = append(docs, f.doc)
		}
	}
	return out, docs, nil
}

// process turns the engine's findings into the outcome: the ordered
// steps of lint/process.
func (o Options) process(ctx context.Context, rules []finding.Rule, files []*file, settings map[string]process.Setting, findings []finding.Finding) *Outcome {
	out := &Outcome{}
	isContext := map[string]bool{}
	markers := map[string][]loader.Suppression{}
	loaded := make([]string, 0, len(files))
	kinds := map[string]loader.Kind{}
	for _, f := range files {
		loaded = append(loaded, f.path)
		if f.kind != "" {
			kinds[f.path] = f.kind
		}
		markers[f.path] = f.suppressions
		if f.context {
			isContext[f.path] = true
			continue
		}
		out.Paths = append(out.Paths, f.path)
		if f.unread != nil {
			out.Unreadable = append(out.Unreadable, *f.unread)
		}
	}
	repoLevel := map[string]bool{}
	for _, r := range rules {
		repoLevel[r.ID] = r.RepositoryLevel
	}
	// Files loaded only as context (see loadContext) report nothing of
	// their own.
	own := func(f finding.Finding) bool { return !isContext[f.Path] || repoLevel[f.Rule] }
	var planned process.Planned
	content, closeContent := o.contentSums()
	defer closeContent()
	out.Findings = process.Run(findings,
		process.Settings(settings),
		process.Dedupe(),
		process.PolicyCheck(loaded, o.Config.RequiredFiles(), rules),
		process.Fingerprint(content),
		process.Suppress(markers, o.Config, rules, o.Suppress, []process.Step{process.Settings(settings), process.Fingerprint(content)}, &out.Suppressed),
		process.Sort(),
		process.Keep("own files", own, &out.Suppressed),
		process.Record(&out.All),
		process.ChangedLines(o.Changed, rules, &out.NotNew),
		process.InBaseline(o.Baseline, &out.Baselined),
		process.Fixes(ctx, o.Root, rules, o.Fix, &out.All, &out.Suppressed, &planned, kinds),
	)
	out.Fixes, out.FixError, out.UnsafeFixes = planned.Files, planned.Err, planned.Unsafe
	return out
}

// Load reads and parses every file (and each required file that exists
// and was not among them), as buildgate parse and the benchmarks do: no
// document waits. A file that cannot be read becomes a document holding
// only an error entry.
func Load(root string, files []discover.File, required []string, maxSize int64) ([]loader.Document, []Unreadable, error) {
	l, err := loader.NewLoader(root)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = l.Close() }()
	if maxSize > 0 {
		l.MaxFileSize = maxSize
	}
	var docs []loader.Document
	var unread []Unreadable
	seen := map[string]bool{}
	add := func(ds []loader.Document) {
		for _, d := range ds {
			if !seen[d.DocPath()] {
				seen[d.DocPath()] = true
				docs = append(docs, d)
			}
		}
	}
	work := append([]discover.File(nil), files...)
	for _, r := range required {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r))); err == nil {
			work = append(work, discover.File{Path: r, Kind: loader.KindRequirements})
		}
	}
	for _, f := range work {
		if seen[f.Path] {
			continue
		}
		kind := f.Kind
		if kind == "" {
			kind = loader.KindShell
		}
		ds, err := l.Load(f.Path, kind)
		if err != nil {
			doc := loader.Empty(kind, f.Path)
			addError(doc, "cannot open the file: "+describe(err))
			unread = append(unread, Unreadable{Path: f.Path, Reason: describe(err)})
			ds = []loader.Document{doc}
		}
		add(ds)
	}
	return docs, unread, nil
}

func addError(doc loader.Document, msg string) {
	loader.AddError(doc, loader.Error{Message: msg, Pos: loader.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}})
}

func describe(err error) string {
	var re *loader.ReadError
	if errors.As(err, &re) {
		err = re.Err
	}
	if errors.Is(err, safefile.ErrOutsideRoot) {
		return "it is a symbolic link that leads out of the repository root (not followed)"
	}
	return safefile.Describe(err)
}

// Suppression, baseline and fix options are the processing steps'.
type (
	SuppressOptions = process.SuppressOptions
	Baseline        = process.Baseline
)

// ParseBaseline reads the content b of the baseline file path.
func ParseBaseline(path string, b []byte) (*Baseline, error) { return process.ParseBaseline(path, b) }

// contentSums gives a file's content checksum (SHA-256 of its bytes as
// read through the root now, or why it cannot be read), once per path:
// the salt of a BG001's fingerprint (process.Fingerprint). The root is
// opened on the first call; close releases it.
func (o Options) contentSums() (sum func(string) string, closeRoot func()) {
	sums := map[string]string{}
	var l *loader.Loader
	sum = func(p string) string {
		if s, ok := sums[p]; ok {
			return s
		}
		s := "unreadable"
		if l == nil {
			l, _ = loader.NewLoader(o.Root)
		}
		if l != nil {
			if src, err := l.Read(p); err == nil {
				h := sha256.Sum256(src)
				s = hex.EncodeToString(h[:])
			}
		}
		sums[p] = s
		return s
	}
	return sum, func() {
		if l != nil {
			_ = l.Close()
		}
	}
}

// placeFailure places the finding of a user rule that failed at run time
// in its policy file when the file is inside the root (a policy kept in
// the repository: code scanning shows it there), else at the repository
// level, with the file and line in its message.
func placeFailure(root string, f finding.Finding) finding.Finding {
	name := filepath.FromSlash(f.Path)
	if !filepath.IsAbs(name) {
		if abs, err := filepath.Abs(name); err == nil {
			name = abs
		}
	}
	if rel, ok := safefile.Inside(root, name); ok {
		f.Path = filepath.ToSlash(rel)
		return f
	}
	f.Path, f.Pos = "", finding.Pos{}
	return f
}
