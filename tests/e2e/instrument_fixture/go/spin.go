// Package spin is a benchmark whose loop executes a number of instructions known by hand, for
// the instrument's tests.
package spin

// spin executes 2n + 2 instructions (spin_amd64.s).
func spin(n int)
