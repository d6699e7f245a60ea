// Package kind names the kinds of build file buildgate loads: the one list
// the loaders, the configuration (`kinds:`) and the documents share.
package kind

// Kind names a file kind and its loader.
type Kind string

// The file kinds buildgate loads.
const (
	Dockerfile   Kind = "dockerfile"
	HCL          Kind = "hcl"
	Requirements Kind = "requirements"
	Shell        Kind = "shell"
	Pipeline     Kind = "pipeline"
)

// All lists every kind in a stable order.
var All = []Kind{Dockerfile, HCL, Requirements, Shell, Pipeline}

// Names are the kinds' names, in All's order.
func Names() []string {
	out := make([]string, len(All))
	for i, k := range All {
		out[i] = string(k)
	}
	return out
}
