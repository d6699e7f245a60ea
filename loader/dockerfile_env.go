package loader

import "strings"

// pipEnv are the PIP_*/UV_* settings a RUN of the current stage sees: the
// ENV and ARG defaults of the stages it is built FROM (in this file),
// then its own so far. An ARG with a default is in a RUN's environment
// as an ENV is; one without is whatever --build-arg says, not known here.
func (d *dockerLoad) pipEnv() []pipEnvSetting {
	stage := len(d.doc.Stages)
	if stage == 0 {
		return nil
	}
	if d.pipInherited == nil {
		d.pipInherited = map[int][]pipEnvSetting{}
	}
	inherited, ok := d.pipInherited[stage-1]
	if !ok {
		inherited = d.inheritedPipEnv(stage-1, 0)
		d.pipInherited[stage-1] = inherited
	}
	out := append([]pipEnvSetting(nil), inherited...)
	return appendPipEnv(out, d.doc.Stages[stage-1].Instructions, d.runValues(), true)
}

// inheritedPipEnv are the settings stage k starts with.
func (d *dockerLoad) inheritedPipEnv(k, depth int) []pipEnvSetting {
	base := strings.ToLower(wordValue(d.doc.Stages[k].Base))
	if base == "" || depth > len(d.doc.Stages) {
		return nil
	}
	for j := k - 1; j >= 0; j-- {
		if strings.ToLower(d.doc.Stages[j].Name) != base {
			continue
		}
		// An ARG ends with its stage: only ENV passes to FROM base.
		return appendPipEnv(d.inheritedPipEnv(j, depth+1), d.doc.Stages[j].Instructions, nil, false)
	}
	return nil
}

func appendPipEnv(out []pipEnvSetting, ins []Instruction, vals map[string]string, args bool) []pipEnvSetting {
	for _, in := range ins {
		for _, a := range in.ArgDefs {
			if !args {
				break
			}
			if a.Default != nil && pipVar(a.Name) {
				out = append(out, settingAt(a.Name, expandWith(*a.Default, vals), a.Pos))
			}
		}
		if in.Cmd != "env" {
			continue
		}
		for _, e := range in.Env {
			if pipVar(e.Key) {
				out = append(out, settingAt(e.Key, expandWith(e.Value, vals), e.Pos))
			}
		}
	}
	return out
}
