package popups

import (
	"errors"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/huh"
)

// keyMap is huh's default with Esc closing the form too, as in every owt
// popup.
func keyMap() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.Quit = key.NewBinding(key.WithKeys("ctrl+c", "esc"), key.WithHelp("esc", "close"))
	return km
}

// runForm runs a huh form; closing it (Esc, Ctrl-c) is errCancelled.
func runForm(groups ...*huh.Group) error {
	form := huh.NewForm(groups...).WithKeyMap(keyMap()).WithShowHelp(true)
	if formTheme != nil {
		form = form.WithTheme(formTheme)
	}
	err := form.Run()
	if errors.Is(err, huh.ErrUserAborted) {
		return errCancelled
	}
	return err
}

// confirm asks a yes/no question, No preselected.
func confirm(title, description, yes string) (bool, error) {
	ok := false
	err := runForm(huh.NewGroup(huh.NewConfirm().
		Title(title).Description(description).
		Affirmative(yes).Negative("No").
		Value(&ok)))
	return ok, err
}
