package state

import (
	"fmt"
	"testing"

	"github.com/adrg/xdg"
)

// BenchmarkUpdateRecord is the state part of a hook (one record's status
// changed, unsynced) among 10 and 500 records of one repository: flat.
func BenchmarkUpdateRecord(b *testing.B) {
	for _, n := range []int{10, 500} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			b.Setenv("XDG_STATE_HOME", b.TempDir())
			xdg.Reload()
			s := ForRepo("/r")
			if err := s.Update(func(f *File) error {
				for i := 0; i < n; i++ {
					name := fmt.Sprintf("a%d", i)
					f.Records[name] = &Record{Name: name, Task: "a task", Status: Idle,
						Hooks: []HookEvent{{Event: "Stop", Status: Idle}, {Event: "UserPromptSubmit", Status: Working}}}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st := []Status{Working, Idle}[i%2]
				if err := s.UpdateRecordUnsynced("a1", func(r *Record) error { r.Status = st; return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
