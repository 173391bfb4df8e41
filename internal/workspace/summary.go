package workspace

// publishSummary renders every agent's status into the global tmux user
// options the status bar reads (#{owt_status}). Filled in by the plugin
// work (issue 3).
func (w *Workspace) publishSummary() {}
