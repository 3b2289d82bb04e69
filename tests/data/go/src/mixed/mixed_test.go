// A package with tests and benchmarks, whose `go test -json` output tests/data/go/*.json records.
package mixed

import (
	"fmt"
	"testing"
)

func reverse(values []int) []int {
	reversed := make([]int, len(values))
	for i, value := range values {
		reversed[len(values)-1-i] = value
	}
	return reversed
}

func TestReverse(t *testing.T) {
	got := reverse([]int{1, 2, 3})
	if got[0] != 3 || got[2] != 1 {
		t.Fatalf("reverse gave %v", got)
	}
}

var sink []int

func BenchmarkReverse(b *testing.B) {
	for _, size := range []int{10, 1000} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			values := make([]int, size)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = reverse(values)
			}
		})
	}
}
