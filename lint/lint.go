// Package lint runs the pipeline: discover the build files, load them,
// evaluate the policies, apply the configuration's rule settings.
package lint

import (
	"context"
	"errors"
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/lint/process"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/buildgate/buildgate/changes"
	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// Options describe one run.
type Options struct {
	Root   string
	Paths  []string
	Config *config.Config
	Engine *engine.Engine
	// EngineReady, when set instead of Engine, waits for an engine being
	// compiled while the files load (compiling takes as long as loading a
	// small repository).
	EngineReady func() (*engine.Engine, error)
	MaxFileSize int64
	// Timeout bounds the whole run, loading and evaluation (0: none).
	Timeout time.Duration
	// Suppress says how buildgate:ignore comments and config ignores apply.
	Suppress SuppressOptions
	// Changed, when set, keeps only findings on added or changed lines
	// (and repository-level ones).
	Changed *changes.Set
	// Baseline, when set, drops the findings it holds.
	Baseline *Baseline
	// LazyParse lets documents wait to be parsed until the policies read
	// them (loader.Prepare): only with the built-in rules alone, whose
	// selection says which documents they read; user policies may read
	// any.
	LazyParse bool
	// Progress, when set, hears how far the run is: the stage ("loading",
	// "evaluating") and, while loading, files done of the total. It is
	// called from several goroutines.
	Progress func(stage string, done, total int)
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
}

// Unreadable is a file that could not be opened, and why.
type Unreadable struct {
	Path   string
	Reason string
}

// Run lints. Errors are about the run itself (a path that does not
// exist, a policy that fails); problems with files are findings.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	// --timeout bounds the whole run: a pull request must not be able to
	// hold the gate open by making loading slow either.
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	dopts := discoverOptions(o.Config)
	dopts.Context = ctx
	files, err := discover.Find(o.Root, o.Paths, dopts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("finding the build files did not finish within --timeout %s", o.Timeout)
		}
		return nil, err
	}
	var tick func()
	if o.Progress != nil {
		var done atomic.Int64
		total := len(files)
		tick = func() { o.Progress("loading", int(done.Add(1)), total) }
	}
	var again *loader.Loader
	if o.LazyParse {
		// Documents waiting to be parsed read their text again through
		// it, so that no text is held for the whole run.
		if again, err = loader.NewLoader(o.Root); err != nil {
			return nil, err
		}
		defer func() { _ = again.Close() }()
		if o.MaxFileSize > 0 {
			again.MaxFileSize = o.MaxFileSize
		}
	}
	docs, unreadable, err := loadFiles(ctx, o.Root, files, o.Config.RequiredFiles(), o.MaxFileSize, o.LazyParse, again, tick)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("loading the files did not finish within --timeout %s", o.Timeout)
		}
		return nil, err
	}
	contextDocs, err := loadContext(ctx, o, docs, again)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("loading the files did not finish within --timeout %s", o.Timeout)
		}
		return nil, err
	}
	checked := docs
	isContext := map[string]bool{}
	for _, d := range contextDocs {
		isContext[d.DocPath()] = true
	}
	docs = append(docs[:len(docs):len(docs)], contextDocs...)
	if o.Progress != nil {
		o.Progress("evaluating", len(docs), len(docs))
	}
	input := engine.Input{Documents: docs, Config: o.Config.PolicyInput()}
	if o.EngineReady != nil {
		if o.Engine, err = o.EngineReady(); err != nil {
			return nil, err
		}
	}
	settings, err := ResolveSettings(o.Config, o.Engine.Rules())
	if err != nil {
		return nil, err
	}
	findings, err := o.Engine.Eval(ctx, input)
	if err != nil {
		var te *engine.TimeoutError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s did not finish within --timeout %s", te.Query, o.Timeout)
		}
		return nil, fmt.Errorf("evaluating policies: %w", err)
	}
	paths := make([]string, len(checked))
	for i, d := range checked {
		paths[i] = d.DocPath()
	}
	out := &Outcome{Paths: paths, Unreadable: unreadable}
	repoLevel, locked := map[string]bool{}, map[string]bool{}
	for _, r := range o.Engine.Rules() {
		repoLevel[r.ID] = r.RepositoryLevel
		locked[r.ID] = r.Locked
	}
	// Files loaded only as context (see loadContext) report nothing of
	// their own.
	own := func(f finding.Finding) bool { return !isContext[f.Path] || repoLevel[f.Rule] }
	// A file the change touches that cannot be read (BG001) is reported
	// wherever the error sits: a bound passed by lines added at the end is
	// reported at line 1.
	notNew := func(f finding.Finding) bool {
		return o.Changed != nil && f.Path != "" && !repoLevel[f.Rule] && !o.Changed.Touches(f.Path, f.Pos.Line, f.Pos.EndLine) &&
			(!locked[f.Rule] || !o.Changed.HasFile(f.Path))
	}
	inBaseline := func(f finding.Finding) bool { return o.Baseline != nil && o.Baseline.Has(f) }
	suppress := func(fs []finding.Finding) (kept, suppressed, made []finding.Finding) {
		kept, sup, made := Suppress(fs, docs, o.Config, o.Engine.Rules(), o.Suppress)
		for _, s := range sup {
			f := s.Finding
			f.Suppression = &finding.Suppression{Kind: s.Kind, Justification: s.Justification}
			suppressed = append(suppressed, f)
		}
		return kept, suppressed, made
	}
	loadedPaths := make([]string, len(docs))
	for i, d := range docs {
		loadedPaths[i] = d.DocPath()
	}
	check := newPolicyCheck(loadedPaths, o.Config.RequiredFiles(), o.Engine.Rules())
	out.Findings = process.Run(findings,
		process.Settings(settings),
		process.Dedupe(),
		process.Step{Name: "paths and fixes", Fn: check.Apply},
		process.Fingerprint(),
		process.Suppress(suppress, []process.Step{process.Settings(settings), process.Fingerprint()}, &out.Suppressed),
		process.Sort(),
		process.Keep("own files", own, &out.Suppressed),
		process.Record(&out.All),
		process.SetAside("changed lines", notNew, &out.NotNew),
		process.SetAside("baseline", inBaseline, &out.Baselined),
	)
	return out, nil
}

// Load reads every file, then each required file that exists and was not
// among them. A file that cannot be read becomes a document holding only
// an error entry, so that BG001 reports it: nothing fails open. Files are
// read and parsed in parallel (GOMAXPROCS workers, each with its own
// loader); the documents come out in the order a sequential read gives.
func Load(root string, files []discover.File, required []string, maxSize int64) ([]loader.Document, []Unreadable, error) {
	return LoadWithProgress(root, files, required, maxSize, nil)
}

// LoadWithProgress is Load reporting each file done to progress (which
// must be safe for concurrent use; nil for none).
func LoadWithProgress(root string, files []discover.File, required []string, maxSize int64, progress func()) ([]loader.Document, []Unreadable, error) {
	return loadFiles(context.Background(), root, files, required, maxSize, false, nil, progress)
}

// loadFiles is LoadWithProgress that gives up when ctx ends: it returns at
// once, leaving a file being parsed to its worker (the process is about to
// exit with an error). With lazy, documents may wait to be parsed, reading
// their text again through again (when not nil).
func loadFiles(ctx context.Context, root string, files []discover.File, required []string, maxSize int64, lazy bool, again *loader.Loader, progress func()) ([]loader.Document, []Unreadable, error) {
	work := append([]discover.File(nil), files...)
	listed := map[string]bool{}
	for _, f := range files {
		listed[f.Path] = true
	}
	for _, r := range required {
		if listed[r] {
			continue
		}
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(r)))
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			continue // BG201 reports it
		}
		if err == nil && st.IsDir() {
			continue
		}
		work = append(work, discover.File{Path: r, Kind: loader.KindRequirements})
	}
	type result struct {
		docs   []loader.Document
		unread *Unreadable
	}
	results := make([]result, len(work))
	workers := min(runtime.GOMAXPROCS(0), len(work))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		l, err := loader.NewLoader(root)
		if err != nil {
			close(next)
			wg.Wait()
			return nil, nil, err
		}
		if maxSize > 0 {
			l.MaxFileSize = maxSize
		}
		l.Lazy, l.Again = lazy, again
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.Close()
			for i := range next {
				f := work[i]
				kind := f.Kind
				if kind == "" {
					// Discovery keeps without a kind only what it could
					// not open to read a shebang (a link out of the root,
					// a loop): opening it fails again below, and the
					// document that carries the BG001 needs some kind.
					kind = loader.KindShell
					if k, ok := loader.DetectName(f.Path); ok {
						kind = k
					}
				}
				ds, err := l.Load(f.Path, kind)
				if err != nil {
					doc := loader.Empty(kind, f.Path)
					reason := describe(err)
					addError(doc, "cannot open the file: "+reason)
					results[i] = result{docs: []loader.Document{doc}, unread: &Unreadable{Path: f.Path, Reason: reason}}
				} else {
					for _, d := range ds {
						if d.DocPath() == f.Path {
							for _, e := range f.Errors {
								loader.AddError(d, e)
							}
						}
					}
					results[i] = result{docs: ds}
				}
				if progress != nil {
					progress()
				}
			}
		}()
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		defer close(next)
		for i := range work {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	<-fed
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var docs []loader.Document
	var unreadable []Unreadable
	loaded := map[string]bool{}
	for i, r := range results {
		if loaded[work[i].Path] {
			continue // read already, as an include of an earlier file
		}
		if r.unread != nil {
			unreadable = append(unreadable, *r.unread)
		}
		for _, d := range r.docs {
			if !loaded[d.DocPath()] {
				loaded[d.DocPath()] = true
				docs = append(docs, d)
			}
		}
	}
	return docs, unreadable, nil
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

// Setting is a configuration override resolved to a rule id.
type Setting = process.Setting

// ResolveSettings maps the configuration's rule keys (ids or names) to
// rule ids; a key that names no rule is a configuration error.
func ResolveSettings(c *config.Config, rules []finding.Rule) (map[string]Setting, error) {
	out := map[string]Setting{}
	for _, rs := range c.Rules {
		id := ""
		for _, r := range rules {
			if rs.Key == r.ID || rs.Key == r.Name {
				id = r.ID
			}
		}
		if id == "" {
			return nil, &config.Error{File: c.Source, Line: rs.Line, Msg: fmt.Sprintf("rules: %q is not a rule id or name (see buildgate rules)", rs.Key)}
		}
		for _, r := range rules {
			if r.ID == id && r.Locked && (rs.Disabled || (rs.Severity != "" && rs.Severity != finding.SeverityError)) {
				return nil, &config.Error{File: c.Source, Line: rs.Line, Msg: fmt.Sprintf(
					"rules: %s cannot be turned off or lowered: a file buildgate cannot read or parse must fail the gate (to accept one file, add an ignore: entry with its path and a reason)", rs.Key)}
			}
		}
		s := out[id]
		if rs.Severity != "" {
			s.Severity = rs.Severity
		}
		s.Disabled = rs.Disabled
		out[id] = s
	}
	for _, ig := range c.Ignores {
		if !known(ig.Rule, rules) {
			return nil, &config.Error{File: c.Source, Line: ig.Line, Msg: fmt.Sprintf("ignore: %q is not a rule id or name (see buildgate rules)", ig.Rule)}
		}
	}
	return out, nil
}
