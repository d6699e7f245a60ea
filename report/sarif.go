package report

import (
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// SARIF limits and names.
const (
	// MaxSARIFResults is GitHub code scanning's limit of results per run.
	MaxSARIFResults = 25000
	// MaxSARIFTags is GitHub code scanning's limit of tags per rule: an
	// upload with a rule of more is refused whole.
	MaxSARIFTags   = 20
	sarifSchema    = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	srcRoot        = "%SRCROOT%"
	fingerprintKey = "buildgate/v1"
	informationURI = "https://github.com/buildgate/buildgate"
)

// SARIF is the SARIF 2.1.0 reporter, shaped for GitHub code scanning.
type SARIF struct {
	// HelpURIBase, when set, gives each rule a helpUri: the base with
	// {id} replaced by the rule id, or base/<id>.md.
	HelpURIBase string
	// MaxResults caps the results (0: MaxSARIFResults).
	MaxResults int
}

// VersionControl is where the checked-out repository stands.
type VersionControl struct {
	RepositoryURI string
	RevisionID    string
	Branch        string
}

// Notification is something about the run rather than a finding: a file
// that could not be read, results that were cut.
type Notification struct {
	Level   string // error, warning, note
	Message string
	Path    string // optional
}

type sarifRun struct {
	Tool                     sarifTool                `json:"tool"`
	Invocations              []sarifInvocation        `json:"invocations"`
	OriginalURIBaseIDs       map[string]sarifArtifact `json:"originalUriBaseIds"`
	AutomationDetails        *sarifAutomation         `json:"automationDetails,omitempty"`
	VersionControlProvenance []sarifVersionControl    `json:"versionControlProvenance,omitempty"`
	ColumnKind               string                   `json:"columnKind"`
	Properties               map[string]any           `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifHelp      `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConf  `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifArtifact struct {
	URI         string     `json:"uri,omitempty"`
	URIBaseID   string     `json:"uriBaseId,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifVersionControl struct {
	RepositoryURI string `json:"repositoryUri"`
	RevisionID    string `json:"revisionId"`
	Branch        string `json:"branch,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Fixes               []sarifFix         `json:"fixes,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type sarifFix struct {
	Description     sarifText             `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion `json:"deletedRegion"`
	InsertedContent sarifText   `json:"insertedContent"`
}

var semverRe = regexp.MustCompile(`^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)

// Report implements Reporter.
func (s SARIF) Report(w io.Writer, r *Result) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           r.Tool.Name,
			Version:        r.Tool.Version,
			InformationURI: informationURI,
			Rules:          []sarifRule{},
		}},
		OriginalURIBaseIDs: map[string]sarifArtifact{
			// No uri: the root's local path must not leave the machine.
			srcRoot: {Description: &sarifText{Text: "The repository root; every uri is relative to it."}},
		},
		ColumnKind: "unicodeCodePoints",
	}
	if m := semverRe.FindStringSubmatch(r.Tool.Version); m != nil {
		run.Tool.Driver.SemanticVersion = m[1]
	}
	if r.Category != "" {
		run.AutomationDetails = &sarifAutomation{ID: strings.TrimSuffix(r.Category, "/") + "/"}
	}
	run.Properties = map[string]any{}
	if vc := r.VersionControl; vc != nil && vc.RevisionID != "" {
		// SARIF requires a repositoryUri in versionControlProvenance; with
		// no public remote the revision goes into the run's properties.
		if vc.RepositoryURI != "" {
			run.VersionControlProvenance = []sarifVersionControl{{RepositoryURI: vc.RepositoryURI, RevisionID: vc.RevisionID, Branch: vc.Branch}}
		} else {
			run.Properties["revisionId"] = vc.RevisionID
		}
	}
	index := map[string]int{}
	inv := sarifInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{}}
	for _, rule := range r.Rules {
		index[rule.ID] = len(run.Tool.Driver.Rules)
		if len(rule.Tags) > MaxSARIFTags {
			// GitHub refuses the whole upload for a rule with more.
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level:   "warning",
				Message: sarifText{Text: fmt.Sprintf("rule %s has %d tags, more than the %d GitHub accepts: the first %d are kept", rule.ID, len(rule.Tags), MaxSARIFTags, MaxSARIFTags)},
			})
			rule.Tags = rule.Tags[:MaxSARIFTags]
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, s.rule(rule))
	}
	for _, n := range r.Notifications {
		sn := sarifNotification{Level: n.Level, Message: sarifText{Text: n.Message}}
		if n.Path != "" {
			sn.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: artifact(n.Path)}}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sn)
	}
	limit := s.MaxResults
	if limit <= 0 {
		limit = MaxSARIFResults
	}
	findings := r.Findings
	if r.SARIFSuppressed {
		// Marked with suppressions: a viewer that honours them shows them
		// as dismissed.
		findings = append(append([]finding.Finding(nil), findings...), r.Suppressed...)
	} else if len(r.Suppressed) > 0 {
		run.Properties["suppressedNotIncluded"] = len(r.Suppressed)
	}
	if len(findings) > limit {
		kept, omitted := capBySeverity(findings, limit)
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level: "warning",
			Message: sarifText{Text: fmt.Sprintf("%d results, more than the %d a run may hold: the %d most severe are reported, %d left out (%d errors, %d warnings, %d notes)",
				len(findings), limit, limit, len(findings)-limit, omitted[finding.SeverityError], omitted[finding.SeverityWarning], omitted[finding.SeverityNote])},
		})
		run.Properties["resultsTruncated"] = true
		run.Properties["resultsTotal"] = len(findings)
		run.Properties["resultsOmitted"] = map[string]int{
			"error": omitted[finding.SeverityError], "warning": omitted[finding.SeverityWarning], "note": omitted[finding.SeverityNote],
		}
		findings = kept
	}
	run.Invocations = []sarifInvocation{inv}
	fps := finding.Fingerprints(findings)
	for _, f := range findings {
		if _, ok := index[f.Rule]; !ok {
			return fmt.Errorf("sarif: finding of rule %s, which is not in the catalogue", f.Rule)
		}
	}
	// Errors first, then warnings, then notes (in their order within a
	// severity): GitHub keeps only the first 5,000 results of a run, and
	// any cut a consumer makes keeps the most severe (issue 31).
	order := make([]int, len(findings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return finding.SeverityRank(findings[order[a]].Severity) > finding.SeverityRank(findings[order[b]].Severity)
	})
	results := jsonArray(func(yield func(any) error) error {
		for _, i := range order {
			f := findings[i]
			if f.Fingerprint == "" {
				f.Fingerprint = fps[i]
			}
			if err := yield(sarifResultOf(f, index[f.Rule])); err != nil {
				return err
			}
		}
		return nil
	})
	return writeJSON(w, jsonObject{
		{"$schema", sarifSchema},
		{"version", "2.1.0"},
		{"runs", jsonArray(func(yield func(any) error) error { return yield(run.object(results)) })},
	})
}

// object is the run as written: its fields in sarifRun's order, the
// results written one at a time.
func (run *sarifRun) object(results jsonArray) jsonObject {
	o := jsonObject{
		{"tool", run.Tool},
		{"invocations", run.Invocations},
		{"originalUriBaseIds", run.OriginalURIBaseIDs},
	}
	if run.AutomationDetails != nil {
		o = append(o, jsonField{"automationDetails", run.AutomationDetails})
	}
	if len(run.VersionControlProvenance) > 0 {
		o = append(o, jsonField{"versionControlProvenance", run.VersionControlProvenance})
	}
	o = append(o, jsonField{"columnKind", run.ColumnKind}, jsonField{"results", results})
	if len(run.Properties) > 0 {
		o = append(o, jsonField{"properties", run.Properties})
	}
	return o
}

// sarifResultOf is the result of one finding of the rule at idx.
func sarifResultOf(f finding.Finding, idx int) sarifResult {
	res := sarifResult{
		RuleID:              f.Rule,
		RuleIndex:           idx,
		Level:               level(f.Severity),
		Message:             sarifText{Text: f.Message},
		PartialFingerprints: map[string]string{fingerprintKey: f.Fingerprint},
	}
	loc := sarifPhysical{ArtifactLocation: artifact(f.Path)}
	if f.Pos.Line > 0 {
		loc.Region = region(f.Pos)
	}
	if f.Path == "" {
		// A repository-level finding: GitHub needs a location, so the
		// root's first line stands for the repository.
		loc = sarifPhysical{ArtifactLocation: sarifArtifact{URI: ".", URIBaseID: srcRoot}, Region: region(finding.Pos{Line: 1, Column: 1})}
	}
	res.Locations = []sarifLocation{{PhysicalLocation: loc}}
	if f.Fix != nil && f.Path != "" {
		res.Fixes = []sarifFix{{
			Description: sarifText{Text: f.Fix.Description},
			ArtifactChanges: []sarifArtifactChange{{
				ArtifactLocation: artifact(f.Path),
				Replacements: []sarifReplacement{{
					DeletedRegion:   *region(f.Fix.Pos),
					InsertedContent: sarifText{Text: f.Fix.Replacement},
				}},
			}},
		}}
	}
	if s := f.Suppression; s != nil {
		res.Suppressions = []sarifSuppression{{Kind: s.Kind, Justification: s.Justification}}
	}
	return res
}

// capBySeverity keeps the limit most severe findings (errors, then
// warnings, then notes; in their order within a severity), in their
// order, and counts by severity those left out.
func capBySeverity(fs []finding.Finding, limit int) ([]finding.Finding, map[string]int) {
	idx := make([]int, len(fs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return finding.SeverityRank(fs[idx[a]].Severity) > finding.SeverityRank(fs[idx[b]].Severity)
	})
	omitted := map[string]int{}
	for _, i := range idx[limit:] {
		omitted[fs[i].Severity]++
	}
	keep := append([]int(nil), idx[:limit]...)
	sort.Ints(keep)
	out := make([]finding.Finding, len(keep))
	for j, i := range keep {
		out[j] = fs[i]
	}
	return out, omitted
}

func (s SARIF) rule(r finding.Rule) sarifRule {
	full := r.Description
	if full == "" {
		full = r.Title
	}
	props := map[string]any{"tags": append([]string{}, r.Tags...)}
	if r.Precision != "" {
		props["precision"] = r.Precision
	}
	sr := sarifRule{
		ID:                   r.ID,
		Name:                 r.Name,
		ShortDescription:     sarifText{Text: r.Title},
		FullDescription:      sarifText{Text: oneLine(full)},
		Help:                 sarifHelp{Text: RuleText(r), Markdown: RulePage(r)},
		DefaultConfiguration: sarifRuleConf{Level: level(r.Severity)},
		Properties:           props,
	}
	sr.HelpURI = helpURI(s.HelpURIBase, r.ID)
	return sr
}

func level(severity string) string {
	switch severity {
	case finding.SeverityError, finding.SeverityWarning, finding.SeverityNote:
		return severity
	}
	return "none"
}

func artifact(path string) sarifArtifact {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return sarifArtifact{URI: strings.Join(parts, "/"), URIBaseID: srcRoot}
}

func region(p finding.Pos) *sarifRegion {
	r := &sarifRegion{StartLine: p.Line, StartColumn: p.Column, EndLine: p.EndLine, EndColumn: p.EndColumn}
	if r.StartColumn < 1 {
		r.StartColumn = 1
	}
	if r.EndLine < r.StartLine {
		r.EndLine = r.StartLine
	}
	if r.EndColumn < 1 || (r.EndLine == r.StartLine && r.EndColumn < r.StartColumn) {
		r.EndColumn = r.StartColumn
	}
	return r
}
