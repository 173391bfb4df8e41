package monitor

import (
	"errors"
	"io/fs"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// recKey names a record across repositories.
type recKey struct{ repo, name string }

// repoReload is how often a repository's config is read again, so a
// changed [notify] or [tools.X] reaches a long-running monitor.
const repoReload = 30 * time.Second

// recordCache holds every record of every repository, read by a
// state.Reader: a tick decodes again only the record files written since
// the last (most agents' did not change); and one workspace per
// repository for its config, tools and status updates.
type recordCache struct {
	tm      *tmux.Client
	reader  state.Reader
	records []*state.Record
	repos   map[string]*repoView
}

// repoView is one repository as the monitor uses it.
type repoView struct {
	ws          *workspace.Workspace
	classifiers map[string]*agent.Classifier
	loaded      time.Time
	problem     string // the config problem last logged
}

func newRecordCache(tm *tmux.Client) *recordCache {
	return &recordCache{tm: tm, repos: map[string]*repoView{}}
}

// refresh reloads the records when some state file changed, and reports
// whether it did. A repository whose state does not read is left out,
// as owt list --all leaves it out (owt run in it reports and recovers
// it).
func (c *recordCache) refresh(logf func(string, ...any)) (bool, error) {
	recs, changed, skipped, err := c.reader.Read()
	if errors.Is(err, fs.ErrNotExist) {
		c.records = nil
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !changed && c.records != nil {
		return false, nil
	}
	for _, s := range skipped {
		owtlog.Errorf("list", owtlog.Fields{Repo: s.Repo, Event: "list"}, "skip %s: %v", s.Path, s.Err)
	}
	c.records = recs
	if c.records == nil {
		c.records = []*state.Record{}
	}
	for _, r := range recs {
		c.repo(r.Repo, logf)
	}
	return true, nil
}

// repo returns the view of the repository rooted at root, reloading its
// config now and then.
func (c *recordCache) repo(root string, logf func(string, ...any)) *repoView {
	v, ok := c.repos[root]
	if ok && time.Since(v.loaded) < repoReload {
		return v
	}
	ws, err := workspace.OpenRoot(root, c.tm)
	nv := &repoView{ws: ws, classifiers: map[string]*agent.Classifier{}, loaded: time.Now()}
	if err != nil {
		nv.problem = err.Error()
		if !ok || v.problem != nv.problem {
			logf("%s: %v (using the defaults)", root, err)
		}
	}
	v = nv
	for name, p := range ws.Tools {
		if cl, err := agent.NewClassifier(p); err == nil {
			v.classifiers[name] = cl
		}
	}
	c.repos[root] = v
	return v
}

// publishSummary rewrites the status-bar summary from the state files: the
// monitor does it whenever state changed, so the summary ends up right even
// when two processes published in the wrong order. It takes the publish
// lock like every publisher, so it never overwrites a newer summary.
func (c *recordCache) publishSummary() { _ = status.PublishSummaryLocked(c.tm) }
