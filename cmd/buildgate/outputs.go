package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/report"
)

// checkOutputs refuses a run that would overwrite its own input: a report
// written over a file the run checks, the configuration, the baseline or
// the data, or two reports written to one file (`-o F --format sarif=F`,
// also through different spellings or links). Refreshing a baseline in
// place (--baseline F --write-baseline F) stays allowed.
func checkOutputs(outs []output, f lintFlags, root string, checked []string) error {
	type dest struct{ what, file string }
	var dests []dest
	for _, o := range outs {
		if o.file != "" {
			dests = append(dests, dest{"the " + o.format + " report", o.file})
		}
	}
	if f.writeBaseline != "" {
		dests = append(dests, dest{"--write-baseline", f.writeBaseline})
	}
	for i, a := range dests {
		for _, b := range dests[:i] {
			if sameFile(a.file, b.file) {
				return usageErr("%s and %s would both be written to %s", b.what, a.what, a.file)
			}
		}
	}
	inputs := map[string]string{}
	for _, p := range checked {
		inputs[filepath.Join(root, filepath.FromSlash(p))] = "a file this run checks"
	}
	if f.config != "" {
		inputs[f.config] = "the configuration (--config)"
	} else {
		inputs[filepath.Join(root, ".buildgate.yaml")] = "the configuration"
	}
	if f.policy.data != "" {
		inputs[f.policy.data] = "the --data file"
	}
	for _, d := range dests {
		for in, what := range inputs {
			if sameFile(d.file, in) {
				return usageErr("%s would overwrite %s: %s", d.what, what, d.file)
			}
		}
		if f.baseline != "" && d.what != "--write-baseline" && sameFile(d.file, f.baseline) {
			return usageErr("%s would overwrite the --baseline file %s (to refresh it, use --write-baseline %s)", d.what, d.file, f.baseline)
		}
	}
	return nil
}

// sameFile: the same path once made absolute and clean, or the same file
// on disk (a link, another spelling).
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// defaultMaxReportMB is --max-report-size's default: far above any real
// report (vLLM's 62 findings make 60 KB of SARIF; 100,000 findings, the
// most one rule may have, some 60 MB of JSON), far below what findings
// that share one 60 KB fix text reach (12,000 of them: 725 MB of JSON).
const defaultMaxReportMB = 256

// errReportTooLarge stops a report at --max-report-size.
var errReportTooLarge = errors.New("report too large")

// reportWriter writes a run's reports: each as it is made (never whole in
// memory), to standard output or through safefile to its file (a new
// file renamed over the old one: a report stopped half way leaves no
// file), each bounded by --max-report-size and, with the watchdog still
// watching, by --timeout and --max-memory.
type reportWriter struct {
	ctx      context.Context
	stdout   io.Writer
	root     string
	helpBase string
	maxBytes int64 // 0: no bound
	timeout  time.Duration
	dog      *watchdog
}

func (rw reportWriter) write(o output, res *report.Result) error {
	opts := report.Options{HelpURIBase: rw.helpBase}
	if o.file == "" && o.format == "text" {
		opts.Color = useColor(rw.stdout)
	}
	rep, _ := report.New(o.format, opts)
	if o.format == "baseline" {
		rep = report.JSON{Fingerprints: true}
	}
	rw.dog.set("writing the " + o.format + " report")
	err := error(nil)
	if o.file == "" {
		err = rep.Report(&boundedWriter{ctx: rw.ctx, w: rw.stdout, max: rw.maxBytes}, res)
	} else {
		err = safefile.WriteNamedFunc(rw.root, o.file, func(w io.Writer) error {
			return rep.Report(&boundedWriter{ctx: rw.ctx, w: w, max: rw.maxBytes}, res)
		})
	}
	where := "standard output"
	if o.file != "" {
		where = o.file
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errReportTooLarge):
		return usageErr("the %s report to %s is larger than --max-report-size %d MB (each finding's message and fix are written whole, once per finding): %s",
			o.format, where, rw.maxBytes>>20, stopped(o))
	case rw.ctx.Err() != nil:
		return usageErr("the run did not finish within --timeout %s (while writing the %s report to %s): %s", rw.timeout, o.format, where, stopped(o))
	case o.file != "":
		return usageErr("writing the %s report to %s: %s", o.format, o.file, safefile.Describe(err))
	}
	return &exitError{code: exitUsage, msg: fmt.Sprintf("--format %s: %v", o.format, err)}
}

// stopped says what is left of a report stopped half way.
func stopped(o output) string {
	if o.file == "" {
		return "standard output holds the part written before it stopped"
	}
	return "the file is not written"
}

// boundedWriter passes writes on until the report passes max bytes
// (errReportTooLarge) or the run's context ends.
type boundedWriter struct {
	ctx context.Context
	w   io.Writer
	n   int64
	max int64
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.max > 0 && b.n+int64(len(p)) > b.max {
		return 0, errReportTooLarge
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	return n, err
}
