package report

import (
	"bufio"
	"io"
)

// A GitHub runner reads every line of a step's log for workflow commands,
// whatever program printed it: "::" after leading white space, and its
// older form "##[" anywhere in the line (actions/runner's legacy parser).
// The text formats show such text escaped (Visible, SafeLine). The
// encoded formats (JSON, SARIF, rdjson, rdjsonl, JUnit XML) must stay
// valid and decode to exactly what the finding holds, so they escape in
// their own syntax instead: RunnerSafe writes the first "#" of every
// "##[" as the format's escape of "#" (\u0023 in a JSON string, &#35; in
// XML), which decodes to "#" while the bytes of the line no longer hold
// "##[". "::" needs nothing there: encoding/json and encoding/xml write a
// line break inside a string as an escape, so a string never starts a
// line. Escaping the written bytes, not each field, means no field can be
// forgotten: the filter sees everything the report writes.

// Escapes of "#" that decode to "#" in the encoded formats.
const (
	JSONHash = `\u0023`
	XMLHash  = "&#35;"
)

// RunnerSafe is a writer that passes everything to w but writes the first
// "#" of each "##[" as hash (JSONHash or XMLHash: inside a JSON string or
// XML text, the only places a "#" can stand in what encoding/json and
// encoding/xml write, each decodes to "#"). It buffers: Flush writes what
// is held. It is safe on any byte stream split into writes anywhere.
type RunnerSafe struct {
	w    *bufio.Writer
	hash string
	// held is how many "#" ended the bytes seen so far and are not yet
	// written (at most 2: only the last two can start a "##[").
	held int
	err  error
}

// NewRunnerSafe wraps w.
func NewRunnerSafe(w io.Writer, hash string) *RunnerSafe {
	return &RunnerSafe{w: bufio.NewWriterSize(w, 64<<10), hash: hash}
}

// Write implements io.Writer.
func (r *RunnerSafe) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j] != '#' && p[j] != '[' {
			j++
		}
		if j > i {
			// Anything but "#" and "[" ends a run of "#".
			r.release()
			if r.err == nil {
				_, r.err = r.w.Write(p[i:j])
			}
		}
		if j == len(p) || r.err != nil {
			break
		}
		switch {
		case p[j] == '#' && r.held == 2:
			// Only the last two of a run can start "##[".
			r.err = r.w.WriteByte('#')
		case p[j] == '#':
			r.held++
		case r.held == 2:
			_, r.err = r.w.WriteString(r.hash + "#[")
			r.held = 0
		default:
			r.release()
			r.err = r.w.WriteByte('[')
		}
		i = j + 1
	}
	if r.err != nil {
		return 0, r.err
	}
	return len(p), nil
}

// release writes the "#" held.
func (r *RunnerSafe) release() {
	for ; r.held > 0 && r.err == nil; r.held-- {
		r.err = r.w.WriteByte('#')
	}
	r.held = 0
}

// Flush writes what is held and buffered.
func (r *RunnerSafe) Flush() error {
	r.release()
	if r.err != nil {
		return r.err
	}
	return r.w.Flush()
}
