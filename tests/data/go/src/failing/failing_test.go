//go:build failing

// A benchmark that fails and one that logs, for the failure lines of tests/data/go/failing.txt;
// behind a build tag so that `go test ./...` passes without it.
package failing

import "testing"

var counter int

func BenchmarkLogs(b *testing.B) {
	for i := 0; i < b.N; i++ {
		counter++
	}
	b.Logf("ran %d iterations", b.N)
}

func BenchmarkBroken(b *testing.B) {
	b.Fatal("the fixture fails on purpose")
}
