// Package landcmd holds the commands that bring an agent's work home:
// check, merge, ship, queue, sync, cleanup, pr, and dismiss for the
// reactions that follow a pull request.
package landcmd
