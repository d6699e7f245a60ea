package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// The reports are written as they are made, a finding at a time, never
// built whole in memory: findings that share one long text (a policy's
// fix, a message) cost one string while the run holds them, but each
// report writes every copy, and a report built in memory held all of
// them at once, twice (the encoder's buffer and the caller's), past any
// bound the run keeps. Written a finding at a time, a report's memory is
// that of its largest finding; its size is the caller's to bound (the
// writer may refuse to go on).
//
// The JSON formats keep exactly the bytes encoding/json's indenting
// encoder writes for the whole value (the golden files hold them to it):
// jsonObject and jsonArray are written around the values the encoder
// writes, at their depth.

// jsonField is one key of a jsonObject.
type jsonField struct {
	key   string // written as it is: the formats' own keys, never data
	value any
}

// jsonObject is an object written field by field, in order.
type jsonObject []jsonField

// jsonArray is an array written element by element: it calls yield with
// each element in turn and stops at the first error yield returns.
type jsonArray func(yield func(any) error) error

// jsonWriter writes JSON values indented as encoding/json's
// SetIndent("", "  ") with HTML left unescaped; the first error sticks.
type jsonWriter struct {
	w   io.Writer
	buf bytes.Buffer
	err error
}

func (j *jsonWriter) str(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

// value writes v at the depth whose lines start with prefix.
func (j *jsonWriter) value(v any, prefix string) error {
	switch v := v.(type) {
	case jsonObject:
		if len(v) == 0 {
			j.str("{}")
			break
		}
		j.str("{")
		for i, f := range v {
			if i > 0 {
				j.str(",")
			}
			j.str("\n" + prefix + "  \"" + f.key + "\": ")
			if j.value(f.value, prefix+"  ") != nil {
				break
			}
		}
		j.str("\n" + prefix + "}")
	case jsonArray:
		n := 0
		err := v(func(e any) error {
			if n == 0 {
				j.str("[")
			} else {
				j.str(",")
			}
			n++
			j.str("\n" + prefix + "  ")
			return j.value(e, prefix+"  ")
		})
		if j.err == nil {
			j.err = err
		}
		if n == 0 {
			j.str("[]")
		} else {
			j.str("\n" + prefix + "]")
		}
	default:
		if j.err != nil {
			break
		}
		j.buf.Reset()
		enc := json.NewEncoder(&j.buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent(prefix, "  ")
		if j.err = enc.Encode(v); j.err != nil {
			break
		}
		b := bytes.TrimSuffix(j.buf.Bytes(), []byte("\n"))
		_, j.err = j.w.Write(b)
		if j.buf.Cap() > 1<<20 {
			// A finding of a long fix grew it: let it go.
			j.buf = bytes.Buffer{}
		}
	}
	return j.err
}

// writeJSON writes v as one JSON document (a line break after it),
// runner-safe.
func writeJSON(w io.Writer, v any) error {
	return encoded(w, JSONHash, func(w io.Writer) error {
		j := &jsonWriter{w: w}
		if err := j.value(v, ""); err != nil {
			return err
		}
		j.str("\n")
		return j.err
	})
}

// encoded runs write on a RunnerSafe writer over w (hash: the format's
// escape of "#") and flushes it.
func encoded(w io.Writer, hash string, write func(io.Writer) error) error {
	rs := NewRunnerSafe(w, hash)
	if err := write(rs); err != nil {
		return err
	}
	return rs.Flush()
}

// buffered runs write on a buffered writer over w and flushes it: the
// text formats write many small pieces.
func buffered(w io.Writer, write func(w *bufio.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// findingsOf yields each finding of list as conv makes it.
func findingsOf[T any](list []T, conv func(T) any) jsonArray {
	return func(yield func(any) error) error {
		for _, f := range list {
			if err := yield(conv(f)); err != nil {
				return err
			}
		}
		return nil
	}
}
