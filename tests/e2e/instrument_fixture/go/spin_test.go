package spin

import (
	"fmt"
	"testing"
)

var sink int

// BenchmarkSpin/1000 and BenchmarkSpin/2000 each spin once per iteration, after a set-up of a
// million writes that the timer leaves out and the count must too.
func BenchmarkSpin(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			setup := make([]int, 1<<20)
			for i := range setup {
				setup[i] = i
			}
			sink += setup[len(setup)-1]
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				spin(n)
			}
		})
	}
}
