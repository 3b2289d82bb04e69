window.BENCHMARK_DATA = {
  "lastUpdate": 1700000300000,
  "repoUrl": "https://github.com/example/widgets",
  "entries": {
    "Go Benchmarks": [
      {
        "commit": {
          "author": {"email": "ada@example.org", "name": "Ada Lovelace", "username": "ada"},
          "committer": {"email": "ada@example.org", "name": "Ada Lovelace", "username": "ada"},
          "distinct": true,
          "id": "1111111111111111111111111111111111111111",
          "message": "Add the widget parser\n\nWith a benchmark.",
          "timestamp": "2023-11-14T22:13:20+01:00",
          "tree_id": "aaaa",
          "url": "https://github.com/example/widgets/commit/1111111111111111111111111111111111111111"
        },
        "date": 1700000000000,
        "tool": "go",
        "benches": [
          {"name": "BenchmarkParse", "value": 1250, "unit": "ns/op", "extra": "800000 times\n4 procs"},
          {"name": "BenchmarkRender", "value": 3.5, "unit": "us/op", "extra": "300000 times\n4 procs"}
        ]
      },
      {
        "benches": [
          {"name": "BenchmarkParse", "value": 1300, "unit": "ns/op"},
          {"name": "BenchmarkRender", "value": 3.25, "unit": "us/op"}
        ],
        "tool": "go",
        "date": 1700000100000,
        "commit": {
          "author": {"name": "Grace Hopper"},
          "id": "2222222222222222222222222222222222222222",
          "message": "Render faster",
          "timestamp": "2023-11-14T22:15:00Z",
          "url": "https://github.com/example/widgets/commit/2222222222222222222222222222222222222222"
        }
      }
    ],
    "Julia Benchmarks": [
      {
        "commit": {
          "author": {"name": "Ada Lovelace"},
          "id": "1111111111111111111111111111111111111111",
          "message": "Add the widget parser\n\nWith a benchmark.",
          "timestamp": "2023-11-14T22:13:20+01:00",
          "url": "https://github.com/example/widgets/commit/1111111111111111111111111111111111111111"
        },
        "date": 1700000000000,
        "tool": "julia",
        "benches": [
          {"name": "latency/ttfp", "value": 4403995333, "unit": "ns", "extra": "gctime=1250\nmemory=1312\nallocs=38\nparams={\"samples\":10000,\"evals\":1}"}
        ]
      }
    ],
    "Throughput": [
      {
        "commit": {"author": {"name": "Ada Lovelace"}, "id": "1111111111111111111111111111111111111111", "message": "m", "timestamp": "t", "url": "u"},
        "date": 1700000000000,
        "tool": "customBiggerIsBetter",
        "benches": [
          {"name": "copy", "value": 850, "unit": "MB/s"},
          {"name": "frames", "value": 60, "unit": "fps"}
        ]
      }
    ]
  }
};
