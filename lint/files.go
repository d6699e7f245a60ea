package lint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

// file is what a run keeps of one file between its phases (issue 27):
// its facts, the stamp of its text (to read it again), its suppression
// markers, and its document only while the budget of documents kept
// allows. A document is a plain value: when it is not kept it is read
// again and parsed anew for its evaluation.
type file struct {
	path string
	kind loader.Kind
	bare bool // not parsed: its text holds none of the needles
	// quiet: its text holds none of the needles (parsed or not).
	quiet bool
	// reduced: parsed for its bounds alone and evaluated as bare
	// (loader.Unread): never kept, read again in full when it matters.
	reduced bool
	// refsOnly: its text holds none of the needles and it was parsed
	// only for its references (a script, a pipeline, a Dockerfile that
	// runs what it copies): evaluated as loader.Unread makes it (its
	// errors and suppressions), a small document kept whatever the
	// budget. Its full document held until evaluation was most of the
	// memory of a large repository (netdata: 100 MB live of 120).
	refsOnly bool
	// hay is its text as the source builtins search it, until it is
	// evaluated.
	hay   []byte
	stamp loader.Stamp
	// notes are errors found outside its parse (discovery's: a bound a
	// reference passed), added to every parse of it.
	notes []loader.Error
	facts ast.Value
	// findings and reads are its evaluation with the table its own facts
	// make: final when every read answers the same from the repository's
	// whole table (engine.Table.Holds), else it is evaluated again.
	findings []finding.Finding
	reads    []engine.Read
	// refs are the files its document has the CI system read or run.
	refs []loader.FileRef
	// named are the script names a Dockerfile left unparsed names
	// (loader.ScriptNames), for what runs what.
	named []string
	// again: evaluate it again whatever its reads (a note was added).
	again bool
	// doc is the document converted, while kept (Value nil otherwise).
	doc          engine.Doc
	suppressions []loader.Suppression
	unread       *Unreadable
	context      bool // loaded only as context (loadContext)
}

// keepBudget is how much memory the documents a run keeps converted
// between the facts and the evaluation may take, each costed by
// keepCost. Beyond it a document is read again and parsed anew for its
// evaluation, so memory is bounded by the files in flight, not the
// repository. Requirements files are kept whatever their size (their
// includes were followed as they loaded), and every document when user
// policies are loaded (they read every document at once).
const keepBudget = 16 << 20

// keepCost estimates a converted document's size: some sixty times its
// text, and some 3 KB for even the smallest (a two-line script).
func keepCost(src []byte) int64 { return 64*int64(len(src)) + 3<<10 }

// phase1 is what the first phase needs: the engine, the configuration's
// value, the needles, and whether every file is parsed (user policies).
type phase1 struct {
	eng      *engine.Engine
	cfg      ast.Value
	needles  []string
	parseAll bool
	// empty is the repository's table folded from no file.
	empty ast.Value
	kept  atomic.Int64
	// errs are the errors of batches evaluated as their workers ended.
	mu    sync.Mutex
	errs  []error
	facts interned
}

// interned holds one copy of each distinct facts value: most files of a
// large repository have the same facts (nothing of the migration), and a
// copy each is some 3 KB a file.
type interned struct {
	mu     sync.Mutex
	byHash map[int][]ast.Value
	n      int
}

// maxInterned bounds the distinct values held (past it a value is kept
// as it is): the lookup stays cheap whatever the repository.
const maxInterned = 4096

func (in *interned) intern(v ast.Value) ast.Value {
	if v == nil {
		return nil
	}
	h := v.Hash()
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, w := range in.byHash[h] {
		if ast.Compare(v, w) == 0 {
			return w
		}
	}
	if in.n < maxInterned {
		if in.byHash == nil {
			in.byHash = map[int][]ast.Value{}
		}
		in.byHash[h] = append(in.byHash[h], v)
		in.n++
	}
	return v
}

// loadAll reads, parses what the needles ask for, converts and takes the
// facts of every file (and of the required files that exist and are not
// among them), on GOMAXPROCS workers, each with its own loader. A file
// that cannot be read is a document holding only an error entry, so that
// BG001 reports it: nothing fails open. The files come out in the order
// a sequential read gives, each path once.
func (p *phase1) loadAll(ctx context.Context, root string, files []discover.File, required []string, maxSize int64, progress func()) ([]*file, error) {
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
		if err != nil && errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
			continue // BG201 reports a missing one
		}
		work = append(work, discover.File{Path: r, Kind: loader.KindRequirements})
	}
	jobs, err := p.requirementsFirst(ctx, root, work, maxSize)
	if err != nil {
		return nil, err
	}
	out := make([]*file, len(jobs))
	errs := make([]error, len(jobs))
	err = eachParallel(ctx, len(jobs), func() (func(int), func(), error) {
		l, err := loader.NewLoader(root)
		if err != nil {
			return nil, nil, err
		}
		if maxSize > 0 {
			l.MaxFileSize = maxSize
		}
		b := &batch{}
		return func(i int) {
				j := jobs[i]
				if j.doc != nil {
					out[i], errs[i] = p.finish(ctx, &file{path: j.doc.DocPath(), kind: j.doc.DocKind(), notes: j.f.Errors, stamp: loader.StampOf(j.src), unread: j.unread}, j.doc, j.src, b)
				} else {
					out[i], errs[i] = p.load(ctx, l, j.f, b)
				}
				if progress != nil {
					progress()
				}
			}, func() {
				_ = l.Close()
				if err := p.flush(ctx, b); err != nil {
					p.mu.Lock()
					p.errs = append(p.errs, err)
					p.mu.Unlock()
				}
			}, nil
	})
	if err != nil {
		return nil, err
	}
	if err := errors.Join(append(errs, p.errs...)...); err != nil {
		return nil, err
	}
	return out, nil
}

// job is one file of the first phase: a file to read, or a requirements
// document read already (doc, its text, and unread when it could not be).
type job struct {
	f      discover.File
	doc    loader.Document
	src    []byte
	unread *Unreadable
}

// requirementsFirst reads the requirements files, in order, on one loader,
// following their includes: that is a walk of one graph, and where it
// finds a cycle depends on where it starts, so it starts where a
// sequential read does. The jobs are every file once: each requirements
// file as read (the files it includes after it), the others to read.
func (p *phase1) requirementsFirst(ctx context.Context, root string, work []discover.File, maxSize int64) ([]job, error) {
	l, err := loader.NewLoader(root)
	if err != nil {
		return nil, err
	}
	defer func() { _ = l.Close() }()
	if maxSize > 0 {
		l.MaxFileSize = maxSize
	}
	var jobs []job
	done := map[string]bool{}
	for _, f := range work {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if done[f.Path] {
			continue
		}
		if f.Kind != loader.KindRequirements {
			done[f.Path] = true
			jobs = append(jobs, job{f: f})
			continue
		}
		ds, err := l.Load(f.Path, loader.KindRequirements)
		if err != nil {
			reason := describe(err)
			doc := loader.Empty(loader.KindRequirements, f.Path)
			addError(doc, "cannot open the file: "+reason)
			done[f.Path] = true
			jobs = append(jobs, job{f: f, doc: doc, unread: &Unreadable{Path: f.Path, Reason: reason}})
			continue
		}
		for i, d := range ds {
			if done[d.DocPath()] {
				continue
			}
			done[d.DocPath()] = true
			j := job{doc: d, src: d.DocSource()}
			if i == 0 {
				j.f = f
			}
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// eachParallel runs n jobs on GOMAXPROCS workers; each worker is made by
// start (its job function and what ends it). It returns when every job is
// done, or at once when ctx ends (a job still running is left to its
// worker: the process is about to exit with an error).
func eachParallel(ctx context.Context, n int, start func() (func(int), func(), error)) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		job, end, err := start()
		if err != nil {
			close(next)
			wg.Wait()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer end()
			for i := range next {
				job(i)
			}
		}()
	}
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		defer close(next)
		for i := 0; i < n; i++ {
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
		return ctx.Err()
	}
	return ctx.Err()
}

// load is the first phase of one file other than a requirements file:
// read it, parse it when it must be (or the needles say it matters), and
// finish it.
func (p *phase1) load(ctx context.Context, l *loader.Loader, f discover.File, b *batch) (*file, error) {
	kind := f.Kind
	if kind == "" {
		// Discovery keeps without a kind only what it could not open to
		// read a shebang (a link out of the root, a loop): opening it fails
		// again below, and the document that carries the BG001 needs some
		// kind.
		kind = loader.KindShell
		if k, ok := loader.DetectName(f.Path); ok {
			kind = k
		}
	}
	src, err := l.Read(f.Path)
	if err != nil {
		doc := loader.Empty(kind, f.Path)
		var tooBig *safefile.SizeError
		if errors.As(err, &tooBig) {
			tooBig.Flag = "--max-file-size"
			loader.AddError(doc, loader.Error{Message: tooBig.Error(), Pos: startPos})
			return p.finish(ctx, &file{path: f.Path, kind: kind, notes: f.Errors}, doc, nil, nil)
		}
		reason := describe(err)
		loader.AddError(doc, loader.Error{Message: "cannot open the file: " + reason, Pos: startPos})
		return p.finish(ctx, &file{path: f.Path, kind: kind, notes: f.Errors, unread: &Unreadable{Path: f.Path, Reason: reason}}, doc, nil, nil)
	}
	first := &file{path: f.Path, kind: kind, notes: f.Errors, stamp: loader.StampOf(src)}
	// The text as the source builtins search it, made once: for the
	// needles here, for the builtins in the evaluations below.
	first.hay = engine.Haystack(src)
	first.quiet = !engine.HayContainsAny(first.hay, p.needles)
	if first.quiet && !p.parseAll && !loader.ParsedForWhatItHolds(kind, src) {
		if kind == loader.KindDockerfile {
			first.named = loader.ScriptNames(src)
		}
		if !loader.ParsedForBounds(kind, src) {
			first.bare = true
			return p.finish(ctx, first, loader.Bare(kind, f.Path, src), src, b)
		}
		// Parsed for its bounds alone: evaluated as a bare file with its
		// errors (not kept: read again, in full, if the repository's
		// table makes it matter).
		first.reduced = true
		return p.finish(ctx, first, loader.Unread(loader.Parse(kind, f.Path, src)), src, b)
	}
	if first.quiet && !p.parseAll && kind != loader.KindRequirements && kind != loader.KindHCL {
		// Parsed for its references alone (a bake file's targets are
		// facts of the repository: it stays whole).
		doc := loader.Parse(kind, f.Path, src)
		first.refs, first.refsOnly = loader.References(doc), true
		return p.finish(ctx, first, loader.Unread(doc), src, b)
	}
	return p.finish(ctx, first, loader.Parse(kind, f.Path, src), src, b)
}

var startPos = loader.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}

// finish converts a file's document, takes its facts, evaluates it with
// the table its own facts make (recording what it reads of the table),
// and keeps the document while the budget allows. A file whose text holds
// none of the needles, and a requirements file (which an include chain
// makes depend on others: its evaluation with its own facts seldom holds),
// goes into the worker's batch instead (b, nil for none), evaluated with
// the others when the batch is full or the worker ends: most files of a
// large repository are such files, and a query's fixed cost is ten times
// a document's.
func (p *phase1) finish(ctx context.Context, f *file, doc loader.Document, src []byte, b *batch) (*file, error) {
	for _, e := range f.notes {
		loader.AddError(doc, e)
	}
	d, err := engine.Convert(doc)
	if err != nil {
		return nil, err
	}
	d.Source = loader.Text(src)
	if f.hay != nil && len(d.Source) == len(src) {
		d.Hay = f.hay // the same text (no byte order mark trimmed)
	}
	f.hay = nil
	f.suppressions = doc.DocSuppressions()
	if !f.refsOnly {
		f.refs = loader.References(doc)
	}
	if b != nil && (f.quiet || f.kind == loader.KindRequirements) && src != nil && p.empty != nil {
		b.files, b.docs, b.srcs = append(b.files, f), append(b.docs, d), append(b.srcs, src)
		b.size += len(src)
		if len(b.files) >= batchFiles || b.size >= batchBytes {
			return f, p.flush(ctx, b)
		}
		return f, nil
	}
	// The word set its facts make serves its rules too; dropped after.
	d.Words = &engine.WordMemo{}
	defer d.Forget()
	facts, err := p.eng.FileFacts(ctx, p.cfg, d)
	if err != nil {
		return nil, err
	}
	f.facts = p.facts.intern(facts)
	own, err := p.eng.Fold(ctx, p.cfg, []engine.FileFact{{Path: f.path, Kind: string(f.kind), Facts: f.facts}})
	if err != nil {
		return nil, err
	}
	table := engine.NewTable(own)
	if f.findings, err = p.eng.EvalFile(ctx, p.cfg, table, d); err != nil {
		return nil, err
	}
	f.reads = table.Reads()
	p.keep(f, d, src)
	return f, nil
}

// A batch is a worker's files whose text holds none of the needles, with
// their documents and texts, until they are evaluated together.
type batch struct {
	files []*file
	docs  []engine.Doc
	srcs  [][]byte
	size  int
}

// A batch is evaluated when it holds batchFiles files or batchBytes of
// text: what it keeps converted stays small.
const (
	batchFiles = 64
	batchBytes = 256 << 10
)

// flush evaluates a batch: the facts of every file in one query, the
// findings in another, with the table of no file (folded once): what a
// file reads of it answers the same from the whole table unless another
// file names it, and then it is evaluated again (each file of the batch
// holds every read of the batch). The batch is empty after.
func (p *phase1) flush(ctx context.Context, b *batch) error {
	if len(b.files) == 0 {
		return nil
	}
	defer func() { *b = batch{} }()
	facts, err := p.eng.FilesFacts(ctx, p.cfg, b.docs)
	if err != nil {
		return err
	}
	table := engine.NewTable(p.empty)
	found, err := p.eng.EvalFiles(ctx, p.cfg, table, b.docs)
	if err != nil {
		return err
	}
	reads := table.Reads()
	byPath := make(map[string]*file, len(b.files))
	for i, f := range b.files {
		byPath[f.path] = f
		f.facts, f.reads = p.facts.intern(facts[i]), reads
	}
	for _, fd := range found {
		f := byPath[fd.Path]
		if f == nil {
			f = b.files[0] // a finding of no file of the batch stays a finding
		}
		f.findings = append(f.findings, fd)
	}
	for i, f := range b.files {
		p.keep(f, b.docs[i], b.srcs[i])
	}
	return nil
}

// keep keeps a file's converted document for its evaluation again, when
// it should be and the budget allows.
func (p *phase1) keep(f *file, d engine.Doc, src []byte) {
	d.Hay = nil
	if f.bare || f.refsOnly {
		// A bare document holds nothing; its text, which holds none of
		// the needles, is at hand as empty (the builtins answer false).
		d.Source = []byte{}
	}
	// A document is kept for the user policies, which read every one; a
	// requirements file's, whose includes were followed as it loaded (a
	// parse alone does not say what following them found); and others
	// within the budget, for a file evaluated again. A bare document is
	// not kept: it is made again from the text, at no cost worth its
	// memory (100,000 scripts kept bare held 300 MB).
	if p.parseAll || f.unread != nil || src == nil || f.kind == loader.KindRequirements || f.refsOnly || !f.bare && !f.reduced && p.kept.Add(keepCost(src)) <= keepBudget {
		f.doc = d
	} else {
		f.doc = engine.Doc{Path: f.path}
	}
}

// document is a file's document for its evaluation: the one kept, else
// read again (checked against its stamp) and parsed anew, or, for a file
// left bare that holds one of the needles the repository's table added,
// parsed now.
func (f *file) document(l *loader.Loader, extra []string) (engine.Doc, error) {
	if f.doc.Value != nil && !f.again && (!f.bare && !f.refsOnly || len(extra) == 0) {
		return f.doc, nil
	}
	src, err := l.ReadAgain(f.path, f.stamp)
	var doc loader.Document
	switch {
	case err != nil:
		doc = loader.Empty(f.kind, f.path)
		loader.AddError(doc, loader.Error{Message: err.Error(), Pos: startPos})
	case f.bare && !engine.ContainsAny(src, extra):
		doc = loader.Bare(f.kind, f.path, src)
		src = []byte{}
	case f.refsOnly && !engine.ContainsAny(src, extra):
		if f.doc.Value != nil && !f.again {
			return f.doc, nil
		}
		doc = loader.Unread(loader.Parse(f.kind, f.path, src))
		src = []byte{}
	default:
		f.bare, f.refsOnly = false, false
		doc = loader.Parse(f.kind, f.path, src)
	}
	for _, e := range f.notes {
		loader.AddError(doc, e)
	}
	d, cerr := engine.Convert(doc)
	if cerr != nil {
		return engine.Doc{}, cerr
	}
	d.Source = loader.Text(src)
	return d, nil
}

// evalBatch is a worker's files evaluated again with the repository's
// whole table, a batch at a time (one query's fixed cost for many files).
type evalBatch struct {
	eng   *engine.Engine
	cfg   ast.Value
	repo  ast.Value
	files []*file
	docs  []engine.Doc
	size  int
}

func (b *evalBatch) add(ctx context.Context, f *file, d engine.Doc) error {
	b.files, b.docs = append(b.files, f), append(b.docs, d)
	b.size += len(d.Source)
	if len(b.files) >= batchFiles || b.size >= batchBytes {
		return b.flush(ctx)
	}
	return nil
}

// flush evaluates the batch: each file's findings are those the pack
// gives its document (a finding of no file of the batch stays a finding,
// with the first).
func (b *evalBatch) flush(ctx context.Context) error {
	if len(b.files) == 0 {
		return nil
	}
	defer func() { b.files, b.docs, b.size = nil, nil, 0 }()
	found, err := b.eng.EvalFiles(ctx, b.cfg, engine.NewTable(b.repo), b.docs)
	if err != nil {
		return err
	}
	byPath := make(map[string]*file, len(b.files))
	for _, f := range b.files {
		f.findings = nil
		byPath[f.path] = f
	}
	for _, fd := range found {
		f := byPath[fd.Path]
		if f == nil {
			f = b.files[0]
		}
		f.findings = append(f.findings, fd)
	}
	return nil
}
