// A small C++ library's history as a new user records it: eight Google Benchmark benchmarks over
// twelve default-branch commits recorded by a backfill (most committed within one afternoon, five
// of them at one identical committer date), plus two pull-request runs whose branch names and
// commit messages are HTML. Made with the real git and `benchwatch record`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROJECT = 'snappy';
export const COMMITS = 12;
// Commits 3 to 7 (0-based) share this committer date, as commits rebased together do.
export const SHARED_DATE = '2025-03-10T15:00:00Z';
export const SHARED = [3, 4, 5, 6, 7];
// Every commit's committer date: a day apart at first, then the shared one, then minutes apart.
export const DATES = [
  '2025-03-06T09:00:00Z', '2025-03-07T09:00:00Z', '2025-03-08T09:00:00Z',
  SHARED_DATE, SHARED_DATE, SHARED_DATE, SHARED_DATE, SHARED_DATE,
  '2025-03-10T15:01:00Z', '2025-03-10T15:02:00Z', '2025-03-10T15:02:30Z', '2025-03-10T15:03:00Z',
];
// ±5% around 1000 ns: what a quiet benchmark's noise looks like. Its median is 1000.
export const FLAT = [1000, 1050, 950, 1020, 980, 1050, 950, 1000, 1030, 970, 1010, 990];
export const FLAT_NAME = 'BM_UFlat/0';
const OTHERS = [
  ['BM_UFlat/1', 52000], ['BM_UFlat/2', 7100], ['BM_UValidate/0', 310],
  ['BM_ZFlat/0', 84000], ['BM_ZFlat/1', 9100], ['BM_ZFlat/2', 1520000], ['BM_ZFlatAll', 2410000],
];
export const BENCHMARKS = [FLAT_NAME, ...OTHERS.map(([name]) => name)].sort();
// The pull requests: each branches off the default branch at commit `base` (0-based), and its
// head measures BM_UFlat/0 at `flat`.
export const PULLS = [
  { number: 41, base: 8, branch: 'fix/<b>bold</b>&co', subject: '</script><script>alert(1)</script> faster <i>inflate</i>', flat: 880 },
  { number: 42, base: 11, branch: 'speed/"quotes"\'', subject: 'Use <em>memcpy</em> & unroll', flat: 1130 },
];

function googleBenchmarkFile(rows) {
  return JSON.stringify({
    context: { date: '2025-03-11T10:00:00+00:00', library_build_type: 'release', num_cpus: 8 },
    benchmarks: rows.map(([name, time]) => ({
      name, run_name: name, run_type: 'iteration', repetitions: 1, iterations: 1000,
      real_time: time, cpu_time: time, time_unit: 'ns',
    })),
  });
}

function commitAt(repository, date, message) {
  execFileSync('git', ['-c', 'user.name=A. Person', '-c', 'user.email=a@example.com',
    'commit', '--quiet', '--allow-empty', '-m', message], {
    cwd: repository,
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repository, encoding: 'utf8' }).trim();
}

function rowsAt(i, flat) {
  // The other benchmarks move by at most 2% (a fixed pattern, so that the test is repeatable).
  const wobble = [0, 0.01, -0.01, 0.02, -0.02, 0.005, -0.005, 0.015, -0.015, 0, 0.01, -0.01];
  return [[FLAT_NAME, flat], ...OTHERS.map(([name, value], k) => [name, value * (1 + wobble[(i + k) % 12])])];
}

// Records the history into `store` from a new repository in `folder`; returns the default
// branch's commits (oldest first) and the pull requests' head commits.
export function recordSnappyHistory(binary, folder, store) {
  const repository = join(folder, 'snappy');
  mkdirSync(repository);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main'], { cwd: repository });
  const commits = DATES.map((date, i) => commitAt(repository, date, `Change ${i} of the codec`));
  const heads = PULLS.map((pull) => {
    execFileSync('git', ['checkout', '--quiet', '-b', `pr${pull.number}`, commits[pull.base]], { cwd: repository });
    const head = commitAt(repository, '2025-03-12T10:00:00Z', pull.subject);
    execFileSync('git', ['checkout', '--quiet', 'main'], { cwd: repository });
    return head;
  });
  const results = join(folder, 'results.json');
  const record = (commit, branch, rows, extra = []) => {
    writeFileSync(results, googleBenchmarkFile(rows));
    execFileSync(binary, ['record', '--store', store, '--project', PROJECT, '--machine', 'ci',
      '--repo', repository, '--commit', commit, '--branch', branch, ...extra, results],
    { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  commits.forEach((commit, i) => record(commit, 'main', rowsAt(i, FLAT[i])));
  PULLS.forEach((pull, k) => record(heads[k], pull.branch, rowsAt(pull.base, pull.flat),
    ['--pull-request', String(pull.number)]));
  return { repository, commits, heads };
}
