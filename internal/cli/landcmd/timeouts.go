package landcmd

import "time"

// remoteFindTimeout bounds asking the hosts which one has an agent.
const remoteFindTimeout = 15 * time.Second
