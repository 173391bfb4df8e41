package setup

import "fmt"

// MaxPort is the highest TCP port.
const MaxPort = 65535

// AllocatePort returns the lowest base+k*block (k >= 0) whose block
// [p, p+block) overlaps no block [u, u+block) for u in used. used may hold
// any ports (blocks handed out under another base or block size still
// count). It is an error when base < 1, block < 1, or no free block fits
// at or below MaxPort.
func AllocatePort(used []int, base, block int) (int, error) {
	if block < 1 {
		return 0, fmt.Errorf("port block size %d: must be at least 1", block)
	}
	if base < 1 || base > MaxPort {
		return 0, fmt.Errorf("base port %d: must be between 1 and %d", base, MaxPort)
	}
	for p := base; p+block-1 <= MaxPort; p += block {
		free := true
		for _, u := range used {
			// [p, p+block) and [u, u+block) overlap iff |p-u| < block.
			if u > p-block && u < p+block {
				free = false
				break
			}
		}
		if free {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free block of %d ports from %d up to %d (%d in use); remove worktrees or change the base port", block, base, MaxPort, len(used))
}
