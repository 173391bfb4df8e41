package tmux

import (
	"strings"
)

// BindCommand is the tmux command that binds key in table to cmd.
func BindCommand(table, key string, cmd []string) []string {
	return append([]string{"bind-key", "-T", table, key}, cmd...)
}

// UnbindCommand is the tmux command that removes key's binding in table.
// Unbinding a key that has no binding is not an error to tmux.
func UnbindCommand(table, key string) []string {
	return []string{"unbind-key", "-T", table, key}
}

// KeyBinding returns key's binding in table as tmux lists it
// ("bind-key -T root M-s display-popup …"), or "" when the key is unbound.
func (c *Client) KeyBinding(table, key string) (string, error) {
	out, err := c.Run("list-keys", "-T", table, key)
	if err != nil {
		// tmux says "unknown key" or "table … doesn't exist" for no binding.
		msg := err.Error()
		if strings.Contains(msg, "unknown key") || strings.Contains(msg, "doesn't exist") {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// DisplayMessage shows text on the status line of client ("" = tmux's
// current client). The text is a literal: '#' is escaped so tmux does not
// read it as a format.
func (c *Client) DisplayMessage(client, text string) error {
	args := []string{"display-message"}
	if client != "" {
		args = append(args, "-c", client)
	}
	_, err := c.Run(append(args, "--", strings.ReplaceAll(text, "#", "##"))...)
	return err
}
