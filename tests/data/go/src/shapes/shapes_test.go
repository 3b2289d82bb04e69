// Benchmarks whose output tests/data/go/*.txt records: plain, sub-benchmarks, b.SetBytes,
// b.ReportAllocs and a custom metric.
package shapes

import (
	"fmt"
	"testing"
)

var sink []int

func BenchmarkSum(b *testing.B) {
	values := make([]int, 100)
	for i := range values {
		values[i] = i
	}
	for i := 0; i < b.N; i++ {
		total := 0
		for _, value := range values {
			total += value
		}
		sink = values[:total%2]
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var grown []int
				for j := 0; j < size; j++ {
					grown = append(grown, j)
				}
				sink = grown
			}
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	source := make([]byte, 4096)
	target := make([]byte, 4096)
	b.SetBytes(int64(len(source)))
	for i := 0; i < b.N; i++ {
		copy(target, source)
	}
}

func BenchmarkWidgets(b *testing.B) {
	widgets := 0
	for i := 0; i < b.N; i++ {
		widgets += 3
	}
	b.ReportMetric(float64(widgets)/float64(b.N), "widgets/op")
}
