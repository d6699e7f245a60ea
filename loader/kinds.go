package loader

import "strings"

// The kind registry: what the loader knows of each kind of build file in
// one place. Adding a kind is a file with its document type, loader and
// empty document, and one entry here (and its name rule in detect.go).
type kindSpec struct {
	// parse reads a file's text into its document.
	parse func(rel string, src []byte) Document
	// empty is a document with nothing in it (a file not read).
	empty func(h Header) Document
	// hashComments: buildgate:ignore comments start with # (else //).
	hashComments bool
}

var kinds = map[Kind]kindSpec{
	KindDockerfile: {
		parse: func(rel string, src []byte) Document { return loadDockerfile(rel, src) },
		empty: func(h Header) Document {
			return &DockerfileDocument{Header: h, Directives: []Directive{}, GlobalArgs: []ArgDef{},
				Preamble: []Instruction{}, Stages: []Stage{}, Warnings: []LintWarning{}, Errors: []Error{}}
		},
		hashComments: true,
	},
	KindHCL: {
		parse: func(rel string, src []byte) Document { return loadHCL(rel, src) },
		empty: func(h Header) Document {
			return &HCLDocument{Header: h, Attributes: []Attribute{}, Blocks: []Block{}, Variables: map[string]*Block{},
				Functions: map[string]*Block{}, Targets: map[string]*Block{}, Groups: map[string]*Block{}, Errors: []Error{}}
		},
	},
	KindRequirements: {
		parse: func(rel string, src []byte) Document { return loadRequirements(rel, src) },
		empty: func(h Header) Document {
			return &RequirementsDocument{Header: h, Requirements: []Requirement{}, Options: []Flag{}, Includes: []Include{}, Errors: []Error{}}
		},
		hashComments: true,
	},
	KindShell: {
		parse: func(rel string, src []byte) Document {
			if f := recipeFlavor(rel); f != "" {
				return loadRecipes(rel, src, f)
			}
			if strings.HasSuffix(strings.ToLower(rel), ".py") {
				return loadPython(rel, src)
			}
			return loadShell(rel, src)
		},
		empty: func(h Header) Document {
			return &ShellDocument{Header: h, Script: newScript(), Comments: []Word{}, Errors: []Error{}}
		},
		hashComments: true,
	},
	KindPipeline: {
		parse: func(rel string, src []byte) Document { return loadPipeline(rel, src) },
		empty: func(h Header) Document {
			return &PipelineDocument{Header: h, Env: []Assignment{}, Scripts: []PipelineScript{}, Builds: []DockerBuild{}, Errors: []Error{}}
		},
		hashComments: true,
	},
}

// errorSetter is what every document type does with its error entries.
type errorSetter interface {
	setErrors([]Error)
}

func (d *DockerfileDocument) setErrors(e []Error)   { d.Errors = e }
func (d *HCLDocument) setErrors(e []Error)          { d.Errors = e }
func (d *RequirementsDocument) setErrors(e []Error) { d.Errors = e }
func (d *ShellDocument) setErrors(e []Error)        { d.Errors = e }

func setErrors(doc Document, errs []Error) { doc.(errorSetter).setErrors(errs) }

func addError(doc Document, e Error) { setErrors(doc, append(doc.DocErrors(), e)) }

// AddError adds an error entry to a document (a file the caller could not
// open, for one).
func AddError(doc Document, e Error) { addError(doc, e) }
