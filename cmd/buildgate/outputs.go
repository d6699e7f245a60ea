package main

import (
	"os"
	"path/filepath"
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
