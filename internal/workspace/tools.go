package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
)

// Tools are the tool profiles of cfg (agent.Profiles), with the tools the
// config names elsewhere checked against them: a [templates.NAME] tool
// owt does not know, or an [agent] tool, is a config problem naming its key, like an unknown
// key, not a surprise at the first owt new with that template. The
// problems are not located yet (config.Locate names their files).
func Tools(cfg config.Config) (map[string]agent.Profile, error) {
	tools, err := agent.Profiles(cfg)
	if err != nil {
		return nil, err
	}
	var ps config.Problems
	if tool := cfg.Agent.Tool; tool != "" && tool != agent.Auto {
		if _, ok := tools[tool]; !ok {
			ps = append(ps, config.Problem{Key: "agent.tool",
				Msg: fmt.Sprintf("unknown tool %q (known: %s, or auto; [tools.NAME] adds one)", tool, strings.Join(agent.Order(tools), ", "))})
		}
	}
	names := make([]string, 0, len(cfg.Templates))
	for n := range cfg.Templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tool := cfg.Templates[n].Tool
		if _, ok := tools[tool]; ok || tool == "" || tool == agent.Auto {
			continue
		}
		ps = append(ps, config.Problem{Key: "templates." + n + ".tool",
			Msg: fmt.Sprintf("unknown tool %q (known: %s, or auto; [tools.NAME] adds one)", tool, strings.Join(agent.Order(tools), ", "))})
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return tools, nil
}
