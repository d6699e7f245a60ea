package loader

import "strings"

// pipelineSystem is the CI system a path names ("" for none).
func pipelineSystem(rel string) string {
	parts := strings.Split(rel, "/")
	base := strings.ToLower(parts[len(parts)-1])
	yml := strings.HasSuffix(base, ".yml") || strings.HasSuffix(base, ".yaml")
	dirs := parts[:len(parts)-1]
	has := func(names ...string) bool {
		for i := 0; i+len(names) <= len(dirs); i++ {
			ok := true
			for k, n := range names {
				ok = ok && dirs[i+k] == n
			}
			if ok {
				return true
			}
		}
		return false
	}
	compose := isCompose(base)
	switch {
	case base == "buildkite.json" || base == "pipeline.json" && len(dirs) > 0 && dirs[len(dirs)-1] == ".buildkite" ||
		base == "pipeline.json" && len(dirs) == 1 && dirs[0] == "buildkite":
		// The Buildkite agent reads a JSON pipeline too (JSON is YAML).
		return "buildkite"
	case !yml:
		return ""
	case base == ".gitlab-ci.yml" || base == ".gitlab-ci.yaml":
		return "gitlab"
	case base == "buildkite.yml" || base == "buildkite.yaml" || has(".buildkite") && !compose,
		len(dirs) == 1 && dirs[0] == "buildkite" && strings.HasPrefix(base, "pipeline."):
		// buildkite/pipeline.yml is among the files the agent uploads
		// by default (buildkite/agent's pipeline_upload.go).
		// A compose file beside the pipeline (the docker-compose
		// plugin's) is not one.
		return "buildkite"
	case len(dirs) >= 2 && dirs[len(dirs)-2] == ".github" && dirs[len(dirs)-1] == "workflows":
		return "github"
	case compose:
		return "compose"
	case (base == "action.yml" || base == "action.yaml") && has(".github", "actions"):
		return "github"
	}
	return ""
}
