// A second package, so that `go test -bench . ./...` prints two pkg: headers.
package words

import (
	"strings"
	"testing"
)

var joined string

func BenchmarkJoin(b *testing.B) {
	parts := []string{"a", "b", "c", "d"}
	for i := 0; i < b.N; i++ {
		joined = strings.Join(parts, ",")
	}
}

func BenchmarkSum(b *testing.B) {
	total := 0
	for i := 0; i < b.N; i++ {
		total += len(joined)
	}
	joined = joined[:total%1]
}
